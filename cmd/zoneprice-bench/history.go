package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"time"
)

const (
	// historyLoadTimeout bounds how long a pod may take to load the
	// history once it is ready.
	historyLoadTimeout = 5 * time.Minute
	// historySettle is how long the bench waits, after a pod reports its
	// history loaded, before reading its memory: the pod returns the
	// load's garbage to the system (debug.FreeOSMemory) just after it
	// says so.
	historySettle = 2 * time.Second
)

// historyLoadResult is the history's cost to a query pod: how long
// loading it takes against a bare consumer reading the same stream, run
// after run, and the pod's memory with an empty history stream and with
// the whole data set loaded.
type historyLoadResult struct {
	changes uint64
	bare    []time.Duration
	// pod is each pod's zoneprice_history_load_seconds: from when it
	// started reading the history stream, once ready, to loaded.
	pod []time.Duration
	// empty and full are the pods' memory with their history loaded:
	// from an empty history stream, and from the data set.
	empty, full []memSample
}

// historyStatus is what a pod's /metrics says of its history.
type historyStatus struct {
	took    time.Duration
	changes uint64
}

// waitHistory polls the pod's /metrics until zoneprice_history_loaded is
// 1, and returns its load time and the changes it holds.
func (c *child) waitHistory(ctx context.Context) (historyStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, historyLoadTimeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		m, err := scrape(ctx, c.metrics()+"/metrics", "zoneprice_history_loaded", "zoneprice_history_load_seconds", "zoneprice_history_changes")
		if err == nil && m[0] == 1 {
			return historyStatus{took: time.Duration(m[1] * float64(time.Second)), changes: uint64(m[2])}, nil
		}
		select {
		case <-c.done:
			return historyStatus{}, c.exitError()
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return historyStatus{}, fmt.Errorf("%s: history not loaded within %v (last scrape: %v); last log lines:\n%s", c.name, historyLoadTimeout, err, c.logTail(10))
			}
			return historyStatus{}, ctx.Err()
		case <-tick.C:
		}
	}
}

// loadedPod starts a query pod, waits until its history is loaded and
// settled, and checks it holds want changes.
func (b *bench) loadedPod(ctx context.Context, env *natsEnv, res *results, want uint64) (*child, historyStatus, error) {
	q, err := b.startQuery(ctx, env.url, res)
	if err != nil {
		return nil, historyStatus{}, err
	}
	st, err := q.waitHistory(ctx)
	if err == nil && st.changes != want {
		err = fmt.Errorf("zoneprice-query loaded %d changes, the history stream holds %d", st.changes, want)
	}
	if err == nil {
		err = sleep(ctx, historySettle)
	}
	if err != nil {
		q.stop()
		return nil, historyStatus{}, err
	}
	return q, st, nil
}

// emptyHistory measures, cfg.runs times, the memory of a pod holding the
// prices with an empty history stream, once its (empty) history is
// loaded: the baseline of the history's memory.
func (b *bench) emptyHistory(ctx context.Context, env *natsEnv, res *results) error {
	hl := &historyLoadResult{}
	res.historyLoad = hl
	for i := range b.cfg.runs {
		q, _, err := b.loadedPod(ctx, env, res, 0)
		if err != nil {
			return err
		}
		m := q.memory(ctx, "prices, empty history stream, history loaded")
		q.stop()
		hl.empty = append(hl.empty, m)
		b.log.Info("memory", "history", "empty", "run", i+1, "rss_mib", m.rss>>20)
	}
	return nil
}

// historyLoad times, cfg.runs times each and alternating which goes first,
// a bare ordered consumer reading every message of the history stream and
// a query pod loading it, and takes each pod's memory once loaded.
func (b *bench) historyLoad(ctx context.Context, env *natsEnv, res *results) error {
	hl := res.historyLoad
	hl.changes = env.changes
	for i := range b.cfg.runs {
		bare := func() error {
			times, err := b.catchupProcess(ctx, env, "-history", "-messages", strconv.FormatUint(env.changes, 10))
			if err != nil {
				return err
			}
			hl.bare = append(hl.bare, times.Bare...)
			b.log.Info("history load", "consumer", "bare", "run", i+1, "took", times.Bare[0].Round(time.Millisecond))
			return nil
		}
		pod := func() error {
			q, st, err := b.loadedPod(ctx, env, res, env.changes)
			if err != nil {
				return err
			}
			defer q.stop()
			hl.pod = append(hl.pod, st.took)
			m := q.memory(ctx, "prices and history, history loaded")
			hl.full = append(hl.full, m)
			b.log.Info("history load", "consumer", "pod", "run", i+1, "took", st.took.Round(time.Millisecond), "rss_mib", m.rss>>20)
			return nil
		}
		if err := inTurn(i, bare, pod); err != nil {
			return err
		}
	}
	return nil
}

// historyProfileTime is how much of a pod's history load the CPU profile
// covers, from when the pod is ready: about half of it on the 2-core
// machine the targets were set on.
const historyProfileTime = 8 * time.Second

// podUnderTest starts the pod the HTTP and freshness runs measure, with
// the history loaded, and profiles its CPU while it loads: a pod apart
// from the timed ones, since profiling slows what it watches.
func (b *bench) podUnderTest(ctx context.Context, env *natsEnv, res *results) (*child, error) {
	q, err := b.startQuery(ctx, env.url, res)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(b.profileDir(), "cpu-history-load.pb.gz")
	profiled := make(chan struct{})
	go func() {
		defer close(profiled)
		if top, err := q.cpuProfile(ctx, historyProfileTime, path, b.queryBin); err != nil {
			res.historyProfile = "not taken: " + err.Error()
		} else {
			res.historyProfile = "Saved to `" + path + "` (`go tool pprof " + b.queryBin + " " + path + "`). The top, by time spent in each function and what it calls:\n\n```\n" + top + "```"
		}
	}()
	st, err := q.waitHistory(ctx)
	if err == nil && st.changes != env.changes {
		err = fmt.Errorf("zoneprice-query loaded %d changes, the history stream holds %d", st.changes, env.changes)
	}
	if err != nil {
		q.stop()
		<-profiled
		return nil, err
	}
	<-profiled
	b.log.Info("pod under test loaded its history", "took", st.took.Round(time.Millisecond), "profiled", historyProfileTime)
	return q, nil
}
