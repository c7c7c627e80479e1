/* The textbook EASY loop of textbook_easy.py in C: the baseline of the compiled kernel.

   Input (stdin): "n total" then n lines "submit run req nodes" in queue order (submit, id).
   Output: "seconds_of_the_loop sum_of_waits". Same semantics as textbook_easy.easy_starts:
   per instant all completions, then all arrivals, then one pass (start from the head while
   jobs fit; the head that does not fit gets the shadow time and extra nodes over the running
   jobs sorted by start + requested time; later jobs start if they fit now and end by the
   shadow time or use only extra nodes; Lifka 1995, Mu'alem and Feitelson 2001). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
static int runcmp(const void *a, const void *b) {
    const Run *x = a, *y = b;
    if (x->est != y->est) return x->est < y->est ? -1 : 1;
    if (x->nj != y->nj) return x->nj < y->nj ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

int main(void) {
    long n, total;
    if (scanf("%ld %ld", &n, &total) != 2) return 2;
    double *submit = malloc(n * sizeof *submit), *run = malloc(n * sizeof *run);
    double *req = malloc(n * sizeof *req), *start = malloc(n * sizeof *start);
    long *nodes = malloc(n * sizeof *nodes), *queue = malloc(n * sizeof *queue);
    Run *running = malloc(n * sizeof *running);
    heap = malloc(n * sizeof *heap);
    for (long k = 0; k < n; k++)
        if (scanf("%lf %lf %lf %ld", &submit[k], &run[k], &req[k], &nodes[k]) != 4) return 2;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long qn = 0, rn = 0, free_ = total, i = 0;
    while (i < n || hn || qn) {
        double now = i < n ? submit[i] : INFINITY;
        if (hn && heap[0].t < now) now = heap[0].t;
        while (hn && heap[0].t == now) {
            long j = pop().j; free_ += nodes[j];
            for (long k = 0; k < rn; k++) if (running[k].j == j) { running[k] = running[--rn]; break; }
        }
        while (i < n && submit[i] == now) queue[qn++] = i++;
        long qh = 0;
        while (qh < qn && nodes[queue[qh]] <= free_) {
            long j = queue[qh++]; free_ -= nodes[j]; start[j] = now; push(now + run[j], j);
            running[rn++] = (Run){now + req[j], nodes[j], j};
        }
        long w = 0;
        if (qh < qn) {
            long need = nodes[queue[qh]], avail = free_;
            double shadow = INFINITY;
            qsort(running, rn, sizeof *running, runcmp);
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
                running[rn++] = (Run){now + req[j], nj, j};
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
