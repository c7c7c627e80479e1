"""The co-location speed model's per-event work in plain Python: the oracle of the compiled
one (:class:`coschedlab.engine.cspeed.NeighbourSpeed`, which replaced this code in the
package). :class:`OracleSpeed` is :class:`~coschedlab.coloc.speed.ColocationSpeed` with the
steps redefined in Python, so the kernel calls them as it calls any Python speed model."""

from __future__ import annotations

from coschedlab.coloc.speed import ColocationSpeed


class OracleSpeed(ColocationSpeed):
    """ColocationSpeed whose per-event steps are the Python reference below."""

    def bind(self, sim) -> None:
        super().bind(sim)
        self._sh = sim.acct.nodes  # the segments: neighbours of every running job
        self._node_cores = sim.acct.cores
        self.cpn_ = sim.cluster.cores_per_node
        n = sim.n
        self.speed = [1.0] * n
        self.work = [0.0] * n
        self.t_upd = [0.0] * n
        self.met = [0] * n

    def target(self, j: int) -> float:
        if self._node_cores[j] == self.cpn_:
            return 1.0
        a = self.app[j]
        if a < 0:
            return 1.0
        s = self._alone[a]
        row, col = self._rows[a], self._col
        for k in self._sh.neighbours_of(j):
            v = row[col[k]]
            if v < s:
                s = v
        return s

    def _end(self, j: int) -> float:
        sim = self.sim
        end = self.t_upd[j] + self.work[j] / self.speed[j]
        if sim.kill_at_walltime and not sim.late_kill:  # (a late kill is the kernel's)
            cap = sim.start[j] + sim.req[j]
            if end > cap:
                sim.killed[j] = 1
                return cap
            sim.killed[j] = 0
        return end

    def end_time(self, j: int, now: float) -> float:
        self.speed[j] = self.target(j)
        self.work[j] = self.sim.run_time[j]
        self.t_upd[j] = now
        return self._end(j)

    def _update_neighbours(
        self, j: int, now: float, changes: dict[int, float], arrived: bool
    ) -> None:
        """Neighbours of ``j`` after ``j`` arrived beside them or left them.

        The speedup is a minimum, so an arrival can only lower it to ``M[k][j]`` (no rescan);
        a departure changes it only where ``j`` was the binding neighbour (rescan those).
        """
        speed, work, t_upd = self.speed, self.work, self.t_upd
        rows, col, app, cpn = self._rows, self._col, self.app, self.cpn_
        node_cores = self._node_cores
        cj = col[j]
        for k in self._sh.neighbours_of(j):
            a = app[k]
            if a < 0 or node_cores[k] == cpn:
                continue  # compact or unknown application: speedup 1 whatever the neighbours
            pair = rows[a][cj]
            if arrived:
                if pair >= speed[k]:
                    continue
                s = pair
            else:
                if pair > speed[k]:
                    continue
                s = self.target(k)
            if s != speed[k]:
                work[k] -= (now - t_upd[k]) * speed[k]
                t_upd[k] = now
                speed[k] = s
                changes[k] = self._end(k)

    def on_start(self, j: int, now: float) -> dict[int, float]:
        changes: dict[int, float] = {}
        beside = self._sh.neighbours_of(j)
        if beside:  # j meets the jobs already there (later arrivals count at their start)
            met = self.met
            met[j] += len(beside)
            for k in beside:
                met[k] += 1
            self._update_neighbours(j, now, changes, arrived=True)
        return changes

    def on_end(self, j: int, now: float) -> dict[int, float]:
        changes: dict[int, float] = {}
        self._update_neighbours(j, now, changes, arrived=False)
        return changes
