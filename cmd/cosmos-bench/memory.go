package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// rssMB returns the resident set size (VmRSS) of process pid in MB, read
// from /proc/<pid>/status.
func rssMB(pid int) (float64, error) { return statusMB(pid, "VmRSS") }

// hwmMB returns the peak resident set size (VmHWM) of process pid in MB.
func hwmMB(pid int) (float64, error) { return statusMB(pid, "VmHWM") }

// statusMB reads a "<field>: <n> kB" line of /proc/<pid>/status.
func statusMB(pid int, field string) (float64, error) {
	kb, err := procKB(fmt.Sprintf("/proc/%d/status", pid), field)
	if err != nil {
		return 0, fmt.Errorf("reading %s of process %d: %w", field, pid, err)
	}
	return float64(kb) / 1024, nil
}

// procKB returns the value of a "<field>: <n> kB" line of a /proc file.
func procKB(path, field string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		v := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB"))
		return strconv.ParseInt(v, 10, 64)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no %s line in %s", field, path)
}

// loadAvg returns the 1-minute load average from /proc/loadavg, or -1.
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

// pgMemory describes the managed PostgreSQL server's processes, which are
// separate from the emulator process and not part of its RSS.
type pgMemory struct {
	Processes int `json:"processes"`
	// PSSMB is the sum of their proportional set sizes (shared memory,
	// such as shared_buffers, is split between the processes that map it,
	// so it is counted once in total).
	PSSMB float64 `json:"pss_mb"`
	// RSSMB is the sum of their RSS, which counts shared pages once per
	// process that touched them and so overstates the total.
	RSSMB float64 `json:"rss_mb"`
}

// postgresMemory measures the postmaster of the managed cluster in dataDir
// and its children (backends, checkpointer, WAL writer, ...). It returns nil
// when they cannot be found.
func postgresMemory(dataDir string) *pgMemory {
	b, err := os.ReadFile(filepath.Join(dataDir, "postgres", "pgdata", "postmaster.pid"))
	if err != nil {
		return nil
	}
	line, _, _ := strings.Cut(string(b), "\n")
	postmaster, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return nil
	}
	pids := append([]int{postmaster}, childrenOf(postmaster)...)
	m := &pgMemory{}
	for _, pid := range pids {
		path := fmt.Sprintf("/proc/%d/smaps_rollup", pid)
		pss, err1 := procKB(path, "Pss")
		rss, err2 := procKB(path, "Rss")
		if err1 != nil || err2 != nil {
			continue // exited meanwhile
		}
		m.Processes++
		m.PSSMB += float64(pss) / 1024
		m.RSSMB += float64(rss) / 1024
	}
	if m.Processes == 0 {
		return nil
	}
	return m
}

// childrenOf returns the ids of the processes whose parent is ppid.
func childrenOf(ppid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": comm may hold spaces and parentheses,
		// so parse from the last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 2 {
			continue
		}
		if p, err := strconv.Atoi(fields[1]); err == nil && p == ppid {
			out = append(out, pid)
		}
	}
	return out
}
