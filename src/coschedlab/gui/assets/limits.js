// coschedlab dashboard: a request the server refuses as too large (an upload over the limit,
// HTTP 413) is said in the page, under the navigation bar, instead of failing silently.
(function () {
  const fetch0 = window.fetch;
  window.fetch = async function (...args) {
    const response = await fetch0.apply(this, args);
    if (response.status === 413) {
      const banner = document.getElementById("app-error");
      if (banner) {
        banner.textContent = "error: the file is larger than the dashboard accepts (64 MB): " +
          "use the command line for it";
        // set outside React's knowledge: cleared here on a click, as the page's own errors are
        banner.addEventListener("click", () => { banner.textContent = ""; }, { once: true });
      }
    }
    return response;
  };
})();
