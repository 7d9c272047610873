package rntbd

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Wake-up frames for the Java SDK.
//
// The Java SDK (azure-cosmos 4.x, RntbdServiceEndpoint.writeWhenConnected)
// hands a request to its connection with Channel.write from whichever
// thread completed the channel acquisition, often not the connection's own
// Netty event loop. Netty queues such an unflushed write as a lazy task,
// which does not wake the event loop: the request waits until the loop
// wakes for another reason, at the latest its idle-state timer, about 100
// ms after the last frame it read. A client that sends one request at a
// time (a test suite, a loop of point reads) then waits up to 100 ms
// before each request leaves: measured here, 25-39 point reads per second
// in direct mode where gateway mode does 730-1,100. Nothing in the answer
// itself can change that; bytes arriving on the connection can, since the
// event loop runs its queued tasks after every read.
//
// So after answering a Java client, while that connection sends nothing
// new and has nothing else in flight, the server sends wake-up frames on
// the schedule wakeSchedule: a response frame whose transport request id
// is 0, which the SDK never assigns (its ids count from 1), and which it
// drops as an answer to no pending request (RntbdRequestManager
// .messageReceived logs it at debug level). Other clients get none: only
// the Java SDK's behaviour was read and measured, and the real service
// sends nothing unsolicited. Options.NoWakeUps turns them off.

// wakeSchedule is when wake-up frames go out, after the answer that
// armed them: every wakeStep for the first 2 ms (the Java SDK sends its
// next request within about a millisecond of the previous answer when a
// caller loops), then at doubling intervals until the SDK's own timer
// would have woken it.
var wakeSchedule = func() []time.Duration {
	var s []time.Duration
	for d := wakeStep; d <= 2*time.Millisecond; d += wakeStep {
		s = append(s, d)
	}
	for d := 4 * time.Millisecond; d <= 128*time.Millisecond; d *= 2 {
		s = append(s, d)
	}
	return s
}()

// wakeStep is the waker's finest interval.
const wakeStep = 100 * time.Microsecond

// wakeFrame is the encoded wake-up frame.
var wakeFrame = func() []byte {
	f, err := EncodeResponse(nil, &Response{Status: 200, Tokens: Tokens{ULongToken(RespTransportRequestID, 0)}})
	if err != nil {
		panic(err)
	}
	return f
}()

// wakeConn is one connection's state for the waker.
type wakeConn struct {
	w *connWriter
	// requests counts the request frames read on the connection.
	requests atomic.Uint64
	// seen is requests when it was armed, since the time, next the
	// index of the next wake-up in wakeSchedule (guarded by waker.mu).
	seen  uint64
	since time.Time
	next  int
}

// waker sends the wake-up frames of every armed connection of a server
// from one goroutine, started at the first arm and stopped by stop. The
// goroutine sleeps until the earliest due wake-up (at most wakeStep while
// a connection is in the schedule's fine steps, up to 64 ms in its
// doubling tail) and not at all while no connection is armed.
type waker struct {
	mu      sync.Mutex
	conns   map[*wakeConn]struct{}
	sleep   *preciseSleeper
	wakeAt  time.Time // when the goroutine's current sleep ends (guarded by mu)
	start   sync.Once
	signal  chan struct{}
	done    chan struct{}
	stopped sync.Once
	// rounds counts the goroutine's rounds (a sleep and a tick): a
	// measure of its cost, read by the tests.
	rounds atomic.Uint64
}

func newWaker() *waker {
	return &waker{conns: map[*wakeConn]struct{}{}, signal: make(chan struct{}, 1), done: make(chan struct{})}
}

// arm starts (or restarts) c's wake-up schedule: the connection was just
// answered and has nothing else in flight. When the goroutine sleeps past
// c's first wake-up, its sleep is cut short.
func (k *waker) arm(c *wakeConn) {
	k.start.Do(func() {
		k.sleep = newPreciseSleeper() // closed by run
		go k.run()
	})
	k.mu.Lock()
	now := time.Now()
	c.seen, c.since, c.next = c.requests.Load(), now, 0
	k.conns[c] = struct{}{}
	if first := now.Add(wakeSchedule[0]); k.wakeAt.After(first) {
		k.wakeAt = first
		k.sleep.set(wakeSchedule[0])
	}
	k.mu.Unlock()
	select {
	case k.signal <- struct{}{}:
	default:
	}
}

// disarm removes c (its connection is closing).
func (k *waker) disarm(c *wakeConn) {
	k.mu.Lock()
	delete(k.conns, c)
	k.mu.Unlock()
}

// stop ends the waker's goroutine.
func (k *waker) stop() { k.stopped.Do(func() { close(k.done) }) }

// run waits for armed connections, then sleeps until the earliest due
// wake-up and sends the due ones, while any connection is armed.
func (k *waker) run() {
	defer k.sleep.close()
	for {
		k.mu.Lock()
		due, armed := k.nextDue()
		if armed {
			// set under mu: an arm after this point shortens the sleep
			k.wakeAt = due
			k.sleep.set(time.Until(due))
		}
		k.mu.Unlock()
		if !armed {
			select {
			case <-k.signal:
			case <-k.done:
				return
			}
			continue
		}
		select {
		case <-k.done:
			return
		default:
		}
		k.sleep.wait()
		k.rounds.Add(1)
		k.tick(time.Now())
	}
}

// nextDue returns the earliest time a wake-up of an armed connection is
// due, and whether any connection is armed. k.mu must be held.
func (k *waker) nextDue() (time.Time, bool) {
	var due time.Time
	for c := range k.conns {
		if at := c.since.Add(wakeSchedule[c.next]); due.IsZero() || at.Before(due) {
			due = at
		}
	}
	return due, !due.IsZero()
}

// tick sends the wake-ups due at now and drops connections that sent a
// request since they were armed or whose schedule is over.
func (k *waker) tick(now time.Time) {
	var due []*connWriter
	k.mu.Lock()
	k.wakeAt = time.Time{}
	for c := range k.conns {
		switch {
		case c.requests.Load() != c.seen:
			delete(k.conns, c)
		case now.Sub(c.since) >= wakeSchedule[c.next]:
			due = append(due, c.w)
			for c.next < len(wakeSchedule) && now.Sub(c.since) >= wakeSchedule[c.next] {
				c.next++
			}
			if c.next == len(wakeSchedule) {
				delete(k.conns, c)
			}
		}
	}
	k.mu.Unlock()
	for _, w := range due {
		w.tryWrite(wakeFrame)
	}
}

// javaAgentPrefix begins the Java SDK's user agent
// ("azsdk-java-cosmos/4.81.0 Linux/... JRE/17...").
const javaAgentPrefix = "azsdk-java-cosmos"

// wakesUp reports whether the client of the context request ctx gets
// wake-up frames: the Java SDK, by its user agent.
func wakesUp(ctx *Request) bool {
	t, _ := ctx.Tokens.Get(CtxUserAgent)
	return strings.HasPrefix(t.String(), javaAgentPrefix)
}
