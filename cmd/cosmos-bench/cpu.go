package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc CPU times (100 on Linux).
const clockTicks = 100

// cpuSample is a snapshot of CPU time in clock ticks: the machine's busy
// time (all CPUs, steal included), and that of this run's processes (this
// process, and the emulator with all its descendants: a managed PostgreSQL's
// server processes are the emulator's children).
type cpuSample struct {
	at         time.Time
	busy, ours int64
	ok         bool
}

// sampleCPU takes a snapshot; emuPID is the emulator's process id.
func sampleCPU(emuPID int) cpuSample {
	s := cpuSample{at: time.Now()}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return s
	}
	// user nice system idle iowait irq softirq steal
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		v, _ := strconv.ParseInt(f[i], 10, 64)
		s.busy += v
	}
	s.ours = procTicks(os.Getpid())
	for _, pid := range append([]int{emuPID}, descendantsOf(emuPID)...) {
		s.ours += procTicks(pid)
	}
	s.ok = true
	return s
}

// othersCores returns the average CPU use of every other process on the
// machine between a and b, in cores (-1 if unknown). Processes that exited
// meanwhile count as others, so it is an upper bound.
func (a cpuSample) othersCores(b cpuSample) float64 {
	d := b.at.Sub(a.at).Seconds()
	if !a.ok || !b.ok || d <= 0 {
		return -1
	}
	return max(float64((b.busy-a.busy)-(b.ours-a.ours))/clockTicks/d, 0)
}

// procTicks returns utime+stime of process pid (0 if it is gone).
func procTicks(pid int) int64 { return statSum(pid, 11, 12) }

// procChildTicks returns cutime+cstime of process pid: the CPU time of its
// children that have exited and been waited for (0 if it is gone).
func procChildTicks(pid int) int64 { return statSum(pid, 13, 14) }

// statSum returns the sum of the fields at the given indexes of
// /proc/<pid>/stat, counted from the state field (index 0, field 3 in
// proc(5)): utime is 11, stime 12, cutime 13, cstime 14. 0 if pid is gone.
func statSum(pid int, idx ...int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// After "pid (comm)", which may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	var sum int64
	for _, j := range idx {
		if j < len(f) {
			v, _ := strconv.ParseInt(f[j], 10, 64)
			sum += v
		}
	}
	return sum
}

// descendantsOf returns the ids of every process below pid.
func descendantsOf(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		kids := childrenOf(queue[0])
		queue = append(queue[1:], kids...)
		out = append(out, kids...)
	}
	return out
}
