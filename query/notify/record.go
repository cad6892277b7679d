package notify

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/zoneprice/zoneprice/contracts/bus"
)

// The last stage of an attempt: its record published where the API shows
// it (contracts.AttemptsStream), then the server told what follows (Ack,
// NakWithDelay or Term).
//
// A worker does neither itself: it hands both to the recorder and takes
// the next delivery. The recorder publishes the records together, every
// Config.RecordInterval or recordBatch records, whichever comes first,
// each endpoint's as one message (bus.Deliveries.RecordAll), and waits
// for the stream to acknowledge the batch (one round trip, not one per
// attempt); only then does it send each answer, so that an attempt
// whose record a crash lost is made again rather than acknowledged
// unrecorded. From the start of an attempt until its answer is sent, the
// delivery is reported in progress to the server every quarter of AckWait,
// so that no other worker is handed it however long the attempt, the
// wait and the record take. When the workers stop, the recorder records
// and answers what it holds, then returns: a replica that stops loses no
// record.

// recordBatch is how many records the recorder publishes at once at
// most; a batch this full is published without waiting for the interval.
const recordBatch = 256

// recordTimeout bounds the publish of one batch of records.
const recordTimeout = 5 * time.Second

// recorder records attempts in batches and answers the server about each
// once its record is stored.
type recorder struct {
	record   func(context.Context, []bus.Attempt) (int, error)
	log      *slog.Logger
	interval time.Duration // the longest a record waits
	progress time.Duration // how often deliveries in flight are reported

	in chan recording

	mu       sync.Mutex
	inFlight map[uint64]bus.Job // by track's token
	next     uint64
}

// recording is an attempt's record and what to do once it is stored:
// answer the server, and whatever follows the answer.
type recording struct {
	token   uint64
	attempt bus.Attempt
	answer  func()
}

func newRecorder(record func(context.Context, []bus.Attempt) (int, error), interval, progress time.Duration, log *slog.Logger) *recorder {
	return &recorder{record: record, log: log, interval: interval, progress: progress,
		in: make(chan recording, 4*recordBatch), inFlight: map[uint64]bus.Job{}}
}

// track reports job in progress until untrack(token) is called.
func (r *recorder) track(job bus.Job) (token uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	r.inFlight[r.next] = job
	return r.next
}

func (r *recorder) untrack(token uint64) {
	r.mu.Lock()
	delete(r.inFlight, token)
	r.mu.Unlock()
}

// finish hands an attempt's record over to be published, after which
// answer is called and the delivery no longer reported in progress. It
// waits only while 4*recordBatch records wait already: while a batch is
// published, the next ones gather.
func (r *recorder) finish(rec recording) { r.in <- rec }

// close says no attempt will finish any more: run publishes what it holds
// and returns. Every finish must have returned.
func (r *recorder) close() { close(r.in) }

// run publishes the records handed over, and reports the deliveries in
// flight in progress, until close is called and the last batch is
// published and answered.
func (r *recorder) run() {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// Reports go on while a batch is published (for up to
	// recordTimeout), so they have a goroutine of their own.
	wg.Go(func() { r.report(stop) })
	defer func() {
		close(stop)
		wg.Wait()
	}()
	tick := time.NewTicker(r.interval)
	defer tick.Stop()
	batch := make([]recording, 0, recordBatch)
	for {
		select {
		case rec, ok := <-r.in:
			if !ok {
				r.flush(batch)
				return
			}
			if batch = append(batch, rec); len(batch) == recordBatch {
				r.flush(batch)
				batch = batch[:0]
			}
		case <-tick.C:
			r.flush(batch)
			batch = batch[:0]
		}
	}
}

// flush publishes batch's records and then answers the server about each.
// Records that cannot be published are logged, and their deliveries go on.
func (r *recorder) flush(batch []recording) {
	if len(batch) == 0 {
		return
	}
	attempts := make([]bus.Attempt, len(batch))
	for i, rec := range batch {
		attempts[i] = rec.attempt
	}
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	recorded, err := r.record(ctx, attempts)
	cancel()
	if err != nil {
		r.log.Warn("recording delivery attempts failed", "attempts", len(batch), "recorded", recorded, "err", err)
	}
	for _, rec := range batch {
		rec.answer()
		r.untrack(rec.token)
	}
}

// report tells the server every r.progress that each delivery in flight
// is being worked on, until stop is closed. A report that reaches the
// server after the delivery's answer is ignored.
func (r *recorder) report(stop <-chan struct{}) {
	t := time.NewTicker(r.progress)
	defer t.Stop()
	var jobs []bus.Job
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		r.mu.Lock()
		for _, job := range r.inFlight {
			jobs = append(jobs, job)
		}
		r.mu.Unlock()
		for _, job := range jobs {
			_ = job.InProgress()
		}
		clear(jobs)
		jobs = jobs[:0]
	}
}
