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
// from one goroutine, started at the first arm and stopped by stop.
type waker struct {
	mu      sync.Mutex
	conns   map[*wakeConn]struct{}
	start   sync.Once
	signal  chan struct{}
	done    chan struct{}
	stopped sync.Once
}

func newWaker() *waker {
	return &waker{conns: map[*wakeConn]struct{}{}, signal: make(chan struct{}, 1), done: make(chan struct{})}
}

// arm starts (or restarts) c's wake-up schedule: the connection was just
// answered and has nothing else in flight.
func (k *waker) arm(c *wakeConn) {
	k.start.Do(func() { go k.run() })
	k.mu.Lock()
	c.seen, c.since, c.next = c.requests.Load(), time.Now(), 0
	k.conns[c] = struct{}{}
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

// run waits for armed connections, then ticks every wakeStep while any
// is armed, sending each connection's due wake-ups. Ticking through the
// schedule's doubling tail too (rather than sleeping until the next due
// wake-up) is measured, not an oversight: the ticks keep the process's
// CPU from going idle between requests, which on the 2-vCPU benchmark
// machine answers the next requests sooner. make java-bench, three
// alternating runs each: sleeping until due did 750-800 direct reads/s at
// one caller and 1,708-2,063 at eight, ticking 780-906 and 2,381-2,437.
func (k *waker) run() {
	sleep := newPreciseSleeper()
	defer sleep.close()
	for {
		k.mu.Lock()
		idle := len(k.conns) == 0
		k.mu.Unlock()
		if idle {
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
		sleep.sleep(wakeStep)
		k.tick(time.Now())
	}
}

// tick sends the wake-ups due at now and drops connections that sent a
// request since they were armed or whose schedule is over.
func (k *waker) tick(now time.Time) {
	var due []*connWriter
	k.mu.Lock()
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
