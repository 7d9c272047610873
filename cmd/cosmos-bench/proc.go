package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Figures read from /proc (Linux): CPU times, memory, the load average and
// the process tree.

// clockTicks is USER_HZ, the unit of /proc CPU times (100 on Linux).
const clockTicks = 100

// procTicks returns utime+stime of process pid (0 if it is gone).
func procTicks(pid int) int64 { return statSum(pid, 11, 12) }

// procChildTicks returns cutime+cstime of process pid: the CPU time of its
// children that have exited and been waited for (0 if it is gone).
func procChildTicks(pid int) int64 { return statSum(pid, 13, 14) }

// statFields returns the fields of /proc/<pid>/stat after "pid (comm)"
// (comm may hold spaces and parentheses): the state is index 0.
func statFields(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if i := bytes.LastIndexByte(b, ')'); err == nil && i >= 0 {
		return strings.Fields(string(b[i+1:]))
	}
	return nil
}

// statSum returns the sum of the stat fields at the given indexes (see
// statFields: utime is 11, stime 12, cutime 13, cstime 14); 0 if pid is
// gone.
func statSum(pid int, idx ...int) int64 {
	f := statFields(pid)
	var sum int64
	for _, j := range idx {
		if j < len(f) {
			v, _ := strconv.ParseInt(f[j], 10, 64)
			sum += v
		}
	}
	return sum
}

// childrenOf returns the ids of the processes whose parent is ppid.
func childrenOf(ppid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			if f := statFields(pid); len(f) > 1 && f[1] == strconv.Itoa(ppid) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// descendantsOf returns the ids of every process below pid.
func descendantsOf(pid int) []int {
	var out []int
	for queue := []int{pid}; len(queue) > 0; {
		kids := childrenOf(queue[0])
		queue = append(queue[1:], kids...)
		out = append(out, kids...)
	}
	return out
}

// rssMB returns the resident set size (VmRSS) of process pid in MB.
func rssMB(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok && err == nil {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS of process %d (%v)", pid, err)
}

// loadAvg returns the 1-minute load average from /proc/loadavg, or -1.
func loadAvg() float64 {
	b, _ := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); len(f) > 0 {
		if v, err := strconv.ParseFloat(f[0], 64); err == nil {
			return v
		}
	}
	return -1
}
