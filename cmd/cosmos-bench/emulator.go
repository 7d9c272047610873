package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// readyPrefix starts the line the emulator prints on stdout once it serves
// requests; the endpoint URL follows it.
const readyPrefix = "cosmos-emulator ready: "

// stopTimeout bounds a graceful stop before the process is killed.
const stopTimeout = 30 * time.Second

// emulatorProcess is a running emulator subprocess.
type emulatorProcess struct {
	cmd     *exec.Cmd
	logPath string        // its stderr (the emulator's log)
	url     string        // the endpoint from the ready line
	ready   time.Duration // from just before exec to the ready line
	exited  chan struct{} // closed once the process has exited and been reaped
	exitErr error         // cmd.Wait's result; read after exited is closed
}

// startEmulator starts bin with args, writing its stderr to logPath, and
// waits up to timeout for its ready line on stdout. ctx cancels
// the wait (the process is then stopped); it does not bound the process's
// life.
func startEmulator(ctx context.Context, bin string, args []string, logPath string, timeout time.Duration) (*emulatorProcess, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	e := &emulatorProcess{logPath: logPath, exited: make(chan struct{})}
	e.cmd = exec.Command(bin, args...)
	e.cmd.Stderr = logFile
	e.cmd.SysProcAttr = sysProcAttr()
	stdout, err := e.cmd.StdoutPipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	type readyLine struct {
		url string
		at  time.Duration
	}
	readyc := make(chan readyLine, 1)
	t0 := time.Now()
	if err := e.cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	go func() {
		// Read stdout to EOF (so the emulator never blocks on it), then reap
		// the process: Wait must follow the last read from the pipe.
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if url, ok := strings.CutPrefix(sc.Text(), readyPrefix); ok {
				select {
				case readyc <- readyLine{strings.TrimSpace(url), time.Since(t0)}:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		e.exitErr = e.cmd.Wait()
		logFile.Close()
		close(e.exited)
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-readyc:
		e.url, e.ready = r.url, r.at
		return e, nil
	case <-e.exited:
		return nil, fmt.Errorf("the emulator exited before it was ready (%v); its log ends with:\n%s", e.exitErr, tailFile(logPath, 20))
	case <-timer.C:
		e.stop()
		return nil, fmt.Errorf("the emulator was not ready after %v; its log ends with:\n%s", timeout, tailFile(logPath, 20))
	case <-ctx.Done():
		e.stop()
		return nil, ctx.Err()
	}
}

// pid returns the process id of the emulator.
func (e *emulatorProcess) pid() int { return e.cmd.Process.Pid }

// cpu samples the CPU time of the emulator and of its managed PostgreSQL
// (sampleProcCPU).
func (e *emulatorProcess) cpu() procCPU { return sampleProcCPU(e.pid(), 0) }

// stop sends SIGTERM and waits for the process to exit (it stops its
// PostgreSQL first), killing it after stopTimeout. It returns how long the
// graceful stop took, and is idempotent.
func (e *emulatorProcess) stop() time.Duration {
	select {
	case <-e.exited:
		return 0
	default:
	}
	t0 := time.Now()
	if err := e.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		e.kill()
	}
	select {
	case <-e.exited:
	case <-time.After(stopTimeout):
		e.kill()
	}
	return time.Since(t0)
}

// kill kills the process and waits until it has been reaped.
func (e *emulatorProcess) kill() {
	_ = e.cmd.Process.Kill()
	<-e.exited
}

// freeAddr returns 127.0.0.1:<port> with a port that was free a moment ago.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// tailFile returns the last n lines of the file at path.
func tailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
