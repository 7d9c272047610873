package rntbd

import (
	"context"
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

// javaAgent is the user agent of the Java SDK's context request.
const javaAgent = "azsdk-java-cosmos/4.81.0 Linux/6.1 JRE/17.0.15"

// readFrames reads the responses arriving on c until quiet passes without
// one, returning them with the time each arrived after start.
func readFrames(t *testing.T, c net.Conn, start time.Time, quiet time.Duration) ([]*Response, []time.Duration) {
	t.Helper()
	var got []*Response
	var at []time.Duration
	for {
		_ = c.SetReadDeadline(time.Now().Add(quiet))
		res, err := ReadResponse(c, Limits{})
		if errors.Is(err, os.ErrDeadlineExceeded) {
			_ = c.SetReadDeadline(time.Time{})
			return got, at
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, res)
		at = append(at, time.Since(start))
	}
}

func echoHandler() Handler {
	return HandlerFunc(func(ctx context.Context, req *Request) *Response {
		return &Response{Status: 200, Payload: req.Payload}
	})
}

// TestWakeUpFramesForJavaClients: after answering a Java SDK connection
// that has nothing else in flight, the server sends wake-up frames
// (transport request id 0, which the SDK never assigns) on wakeSchedule,
// then stops; a client of any other agent, or a server with NoWakeUps,
// gets the answer alone.
func TestWakeUpFramesForJavaClients(t *testing.T) {
	last := wakeSchedule[len(wakeSchedule)-1]
	for _, tt := range []struct {
		name      string
		agent     string
		noWakeUps bool
		wantWakes bool
	}{
		{"java SDK", javaAgent, false, true},
		{"other client", "test", false, false},
		{"java SDK, wake-ups off", javaAgent, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr, _ := startServerWith(t, echoHandler(), Options{NoWakeUps: tt.noWakeUps})
			c := dialContextAs(t, addr, tt.agent)
			start := time.Now()
			send(t, c, 7, []byte(`"x"`))
			frames, at := readFrames(t, c, start, last+200*time.Millisecond)
			if len(frames) == 0 || transportID(t, frames[0]) != 7 || string(frames[0].Payload) != `"x"` {
				t.Fatalf("first frame %+v, want the answer to request 7", frames)
			}
			wakes := frames[1:]
			if !tt.wantWakes {
				if len(wakes) != 0 {
					t.Fatalf("%d frames after the answer, want none", len(wakes))
				}
				return
			}
			// Late ticks merge wake-ups that fell due together, so
			// there may be fewer than the schedule's entries.
			if len(wakes) == 0 || len(wakes) > len(wakeSchedule) {
				t.Fatalf("%d wake-up frames, want 1 to %d", len(wakes), len(wakeSchedule))
			}
			for i, w := range wakes {
				if id := transportID(t, w); id != 0 || w.Status != 200 || len(w.Payload) != 0 {
					t.Fatalf("wake-up %d: id %d status %d payload %q, want id 0, 200, no payload", i, id, w.Status, w.Payload)
				}
			}
			if at[1] >= wakeSchedule[len(wakeSchedule)-1] {
				t.Errorf("the first wake-up came %v after the request", at[1])
			}
		})
	}
}

// TestWakeUpsStopWhenTheClientSendsAgain: a request arriving during the
// schedule ends it; the server answers it (then wakes again after that
// answer). A request's answer always comes, however many wake-ups are
// interleaved.
func TestWakeUpsStopWhenTheClientSendsAgain(t *testing.T) {
	addr, _ := startServerWith(t, echoHandler(), Options{})
	c := dialContextAs(t, addr, javaAgent)
	for id := uint32(1); id <= 20; id++ {
		send(t, c, id, []byte(`"x"`))
		for {
			res, err := ReadResponse(c, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got := transportID(t, res); got == id {
				break
			} else if got != 0 {
				t.Fatalf("frame for request %d while waiting for %d", got, id)
			}
		}
		time.Sleep(time.Duration(id) * 150 * time.Microsecond) // idle a while: wake-ups go out
	}
	// The connection stays usable and the waker quiet once the schedule
	// of the last answer is over.
	frames, _ := readFrames(t, c, time.Now(), wakeSchedule[len(wakeSchedule)-1]+200*time.Millisecond)
	for _, f := range frames {
		if id := transportID(t, f); id != 0 {
			t.Fatalf("frame for request %d after every answer was read", id)
		}
	}
	// a re-armed schedule works as the first: one to len(wakeSchedule)
	// wake-ups after the last answer
	if len(frames) == 0 || len(frames) > len(wakeSchedule) {
		t.Fatalf("%d wake-ups after the last answer, want 1 to %d", len(frames), len(wakeSchedule))
	}
	send(t, c, 99, nil)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	res, err := ReadResponse(c, Limits{})
	if err != nil || transportID(t, res) != 99 {
		t.Fatalf("after the schedule: %v %+v", err, res)
	}
}

// TestWakeSchedule: fine steps first, then doubling intervals, strictly
// increasing, ending by the Java SDK's own idle-state timer's reach.
func TestWakeSchedule(t *testing.T) {
	if wakeSchedule[0] != wakeStep {
		t.Fatalf("first wake-up at %v, want %v", wakeSchedule[0], wakeStep)
	}
	for i := 1; i < len(wakeSchedule); i++ {
		if wakeSchedule[i] <= wakeSchedule[i-1] {
			t.Fatalf("schedule not increasing at %d: %v", i, wakeSchedule)
		}
	}
	if last := wakeSchedule[len(wakeSchedule)-1]; last < 100*time.Millisecond || last > time.Second {
		t.Fatalf("last wake-up at %v", last)
	}
}

// TestPreciseSleeperSleeps: a sleep of wakeStep takes at least wakeStep.
func TestPreciseSleeperSleeps(t *testing.T) {
	s := newPreciseSleeper()
	defer s.close()
	for range 20 {
		start := time.Now()
		s.sleep(wakeStep)
		if d := time.Since(start); d < wakeStep {
			t.Fatalf("slept %v, want >= %v", d, wakeStep)
		}
	}
}

// TestPreciseSleeperZero: sleeping for no time returns (a timerfd set to
// zero is disarmed, and reading it would block for ever).
func TestPreciseSleeperZero(t *testing.T) {
	s := newPreciseSleeper()
	defer s.close()
	done := make(chan struct{})
	go func() {
		s.sleep(0)
		s.sleep(-time.Millisecond)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("sleep(0) did not return")
	}
}
