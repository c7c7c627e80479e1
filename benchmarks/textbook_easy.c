/* The textbook EASY loop of textbook_easy.py in C: the baseline of the compiled kernel.

   Input (stdin): "n total" then n lines "submit run req nodes" in queue order (submit, id).
   Output: "seconds_of_the_loop sum_of_waits". Same semantics as textbook_easy.easy_starts:
   per instant all completions, then all arrivals, then one pass (start from the head while
   jobs fit; the head that does not fit gets the shadow time and extra nodes over the running
   jobs sorted by start + requested time; later jobs start if they fit now and end by the
   shadow time or use only extra nodes; Lifka 1995, Mu'alem and Feitelson 2001).

   Data structures a C programmer would pick: completions in a binary heap; the running jobs
   kept sorted by (start + requested time, nodes, job) in an array (binary search, then one
   memmove, at each start and end), so a pass walks them in order without sorting. (An earlier
   version re-sorted them with qsort at every pass and found an ended job by a linear search:
   same schedule, 2.5x slower on SDSC-SP2 and 7.5x on 1M jobs / 100,000 nodes, a weaker
   baseline than the C loop.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { double t; long j; } Ev;
typedef struct { double est; long nj, j; } Run;
static Ev *heap; static long hn;
static int evlt(Ev a, Ev b) { return a.t < b.t || (a.t == b.t && a.j < b.j); }
static void push(double t, long j) {
    long i = hn++; heap[i] = (Ev){t, j};
    while (i && evlt(heap[i], heap[(i - 1) / 2])) { Ev x = heap[i]; heap[i] = heap[(i - 1) / 2]; heap[(i - 1) / 2] = x; i = (i - 1) / 2; }
}
static Ev pop(void) {
    Ev top = heap[0]; heap[0] = heap[--hn]; long i = 0;
    for (;;) { long l = 2 * i + 1, r = l + 1, m = i;
        if (l < hn && evlt(heap[l], heap[m])) m = l;
        if (r < hn && evlt(heap[r], heap[m])) m = r;
        if (m == i) break; Ev x = heap[i]; heap[i] = heap[m]; heap[m] = x; i = m; }
    return top;
}
static int runlt(Run x, Run y) {
    if (x.est != y.est) return x.est < y.est;
    if (x.nj != y.nj) return x.nj < y.nj;
    return x.j < y.j;
}
static Run *running; static long rn;
static long run_lower(Run e) {  /* the first entry not below e */
    long lo = 0, hi = rn;
    while (lo < hi) { long m = lo + (hi - lo) / 2; if (runlt(running[m], e)) lo = m + 1; else hi = m; }
    return lo;
}
static void run_add(Run e) {
    long i = run_lower(e);
    memmove(&running[i + 1], &running[i], (rn - i) * sizeof *running);
    running[i] = e; rn++;
}
static void run_drop(Run e) {  /* e is present (its key is unique: j) */
    long i = run_lower(e);
    memmove(&running[i], &running[i + 1], (rn - i - 1) * sizeof *running);
    rn--;
}

int main(void) {
    long n, total;
    if (scanf("%ld %ld", &n, &total) != 2) return 2;
    double *submit = malloc(n * sizeof *submit), *run = malloc(n * sizeof *run);
    double *req = malloc(n * sizeof *req), *start = malloc(n * sizeof *start);
    long *nodes = malloc(n * sizeof *nodes), *queue = malloc(n * sizeof *queue);
    running = malloc(n * sizeof *running);
    heap = malloc(n * sizeof *heap);
    for (long k = 0; k < n; k++)
        if (scanf("%lf %lf %lf %ld", &submit[k], &run[k], &req[k], &nodes[k]) != 4) return 2;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long qn = 0, free_ = total, i = 0;
    while (i < n || hn || qn) {
        double now = i < n ? submit[i] : INFINITY;
        if (hn && heap[0].t < now) now = heap[0].t;
        while (hn && heap[0].t == now) {
            long j = pop().j; free_ += nodes[j];
            run_drop((Run){start[j] + req[j], nodes[j], j});
        }
        while (i < n && submit[i] == now) queue[qn++] = i++;
        long qh = 0;
        while (qh < qn && nodes[queue[qh]] <= free_) {
            long j = queue[qh++]; free_ -= nodes[j]; start[j] = now; push(now + run[j], j);
            run_add((Run){now + req[j], nodes[j], j});
        }
        long w = 0;
        if (qh < qn) {
            long need = nodes[queue[qh]], avail = free_;
            double shadow = INFINITY;
            for (long k = 0; k < rn; k++) {
                double est = running[k].est > now ? running[k].est : now;
                if (shadow < INFINITY && est > shadow) break;
                avail += running[k].nj;
                if (shadow == INFINITY && avail >= need) shadow = est;
            }
            long extra = avail - need;
            queue[w++] = queue[qh];
            for (long k = qh + 1; k < qn; k++) {
                long j = queue[k], nj = nodes[j];
                int go = nj <= free_ && (now + req[j] <= shadow || (nj <= extra && (extra -= nj, 1)));
                if (!go) { queue[w++] = j; continue; }
                free_ -= nj; start[j] = now; push(now + run[j], j);
                run_add((Run){now + req[j], nj, j});
            }
        }
        qn = w;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double waits = 0;
    for (long k = 0; k < n; k++) waits += start[k] - submit[k];
    printf("%.6f %.6f\n", (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec), waits);
    return 0;
}
