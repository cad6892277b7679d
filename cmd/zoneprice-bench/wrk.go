package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// wrkThreads is wrk's -t: one thread per core of the 2-core machine the
// targets were set on.
const wrkThreads = 2

// wrkResult is what one wrk --latency run reports.
type wrkResult struct {
	requests  int64
	elapsed   time.Duration
	reqPerSec float64
	// latency percentiles from the "Latency Distribution" block
	p50, p75, p90, p99 time.Duration
	non2xx             int64 // "Non-2xx or 3xx responses"
	socket             socketErrors
}

// socketErrors is wrk's "Socket errors" line.
type socketErrors struct {
	connect, read, write, timeout int64
}

func (s socketErrors) total() int64 { return s.connect + s.read + s.write + s.timeout }

// failed reports whether any request failed: a status outside 2xx and 3xx
// or a socket error.
func (r wrkResult) failed() bool { return r.non2xx > 0 || r.socket.total() > 0 }

// errorSummary is a short description of the failures, "" without any.
func (r wrkResult) errorSummary() string {
	var parts []string
	if r.non2xx > 0 {
		parts = append(parts, fmt.Sprintf("%d non-2xx/3xx", r.non2xx))
	}
	s := r.socket
	for _, e := range []struct {
		name string
		n    int64
	}{{"connect", s.connect}, {"read", s.read}, {"write", s.write}, {"timeout", s.timeout}} {
		if e.n > 0 {
			parts = append(parts, fmt.Sprintf("%d socket %s", e.n, e.name))
		}
	}
	return strings.Join(parts, ", ")
}

// parseWrk reads wrk's text report. Requests/sec and the 50% and 99%
// latency lines must be present; the error lines are optional, as wrk
// prints them only when something failed.
func parseWrk(out string) (wrkResult, error) {
	var r wrkResult
	var haveRate, have50, have99, inDist bool
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch {
		case line == "Latency Distribution":
			inDist = true
		case inDist && len(f) == 2 && strings.HasSuffix(f[0], "%"):
			d, err := time.ParseDuration(f[1])
			if err != nil {
				return r, fmt.Errorf("wrk latency line %q: %w", line, err)
			}
			switch strings.TrimSuffix(f[0], "%") {
			case "50":
				r.p50, have50 = d, true
			case "75":
				r.p75 = d
			case "90":
				r.p90 = d
			case "99":
				r.p99, have99 = d, true
			}
		case f[0] == "Requests/sec:" && len(f) == 2:
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				return r, fmt.Errorf("wrk line %q: %w", line, err)
			}
			r.reqPerSec, haveRate = v, true
		case len(f) >= 4 && f[1] == "requests" && f[2] == "in":
			// "123456 requests in 5.00s, 1.23GB read"
			n, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return r, fmt.Errorf("wrk line %q: %w", line, err)
			}
			d, err := time.ParseDuration(strings.TrimSuffix(f[3], ","))
			if err != nil {
				return r, fmt.Errorf("wrk line %q: %w", line, err)
			}
			r.requests, r.elapsed = n, d
			inDist = false
		case strings.HasPrefix(line, "Non-2xx or 3xx responses:"):
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(line, "Non-2xx or 3xx responses:")), 10, 64)
			if err != nil {
				return r, fmt.Errorf("wrk line %q: %w", line, err)
			}
			r.non2xx = n
		case strings.HasPrefix(line, "Socket errors:"):
			s, err := parseSocketErrors(strings.TrimPrefix(line, "Socket errors:"))
			if err != nil {
				return r, fmt.Errorf("wrk line %q: %w", line, err)
			}
			r.socket = s
		}
	}
	switch {
	case !haveRate:
		return r, errors.New("wrk output has no Requests/sec line")
	case !have50 || !have99:
		return r, errors.New("wrk output has no 50% and 99% latency lines (was --latency given?)")
	}
	return r, nil
}

// parseSocketErrors reads " connect 0, read 1, write 0, timeout 2".
func parseSocketErrors(s string) (socketErrors, error) {
	var e socketErrors
	for part := range strings.SplitSeq(s, ",") {
		f := strings.Fields(part)
		if len(f) != 2 {
			return e, fmt.Errorf("malformed socket error count %q", part)
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return e, err
		}
		switch f[0] {
		case "connect":
			e.connect = n
		case "read":
			e.read = n
		case "write":
			e.write = n
		case "timeout":
			e.timeout = n
		default:
			return e, fmt.Errorf("unknown socket error kind %q", f[0])
		}
	}
	return e, nil
}

// wrkArgs are the arguments of one wrk run against t lasting d (whole
// seconds), sending each of its headers ("Name: value") with every
// request, and running its script.
func (b *bench) wrkArgs(d time.Duration, t wrkTarget) []string {
	args := []string{
		"-t", strconv.Itoa(wrkThreads),
		"-c", strconv.Itoa(b.cfg.connections),
		"-d", strconv.Itoa(int(d/time.Second)) + "s",
	}
	for _, h := range t.headers {
		args = append(args, "-H", h)
	}
	if t.script != "" {
		args = append(args, "-s", t.script)
	}
	return append(args, "--latency", t.url)
}

// runWrk runs wrk for the configured duration against url and parses its
// report.
func (b *bench) runWrk(ctx context.Context, url string, headers ...string) (wrkResult, error) {
	return b.runTarget(ctx, wrkTarget{url: url, headers: headers})
}

// runTarget is runWrk for any target.
func (b *bench) runTarget(ctx context.Context, t wrkTarget) (wrkResult, error) {
	url := t.url
	ctx, cancel := context.WithTimeout(ctx, b.cfg.duration+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.wrk, b.wrkArgs(b.cfg.duration, t)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return wrkResult{}, fmt.Errorf("wrk %s: %w", url, ctx.Err())
		}
		return wrkResult{}, fmt.Errorf("wrk %s: %w: %s%s", url, err, stdout.String(), stderr.String())
	}
	r, err := parseWrk(stdout.String())
	if err != nil {
		return r, fmt.Errorf("wrk %s: %w; its output:\n%s", url, err, stdout.String())
	}
	return r, nil
}

// backgroundWrk is wrk loading a URL until stopped.
type backgroundWrk struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	done   chan struct{}
	err    error
}

// startWrk starts wrk against url for at most limit; stop ends it earlier.
func (b *bench) startWrk(url string, limit time.Duration) (*backgroundWrk, error) {
	w := &backgroundWrk{done: make(chan struct{})}
	w.cmd = exec.Command(b.wrk, b.wrkArgs(limit, wrkTarget{url: url})...)
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	w.cmd.Stdout, w.cmd.Stderr = &w.stdout, &w.stdout
	if err := w.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start wrk: %w", err)
	}
	go func() {
		w.err = w.cmd.Wait()
		close(w.done)
	}()
	return w, nil
}

// running reports whether wrk is still loading.
func (w *backgroundWrk) running() bool {
	select {
	case <-w.done:
		return false
	default:
		return true
	}
}

// stop interrupts wrk, which then prints its report as at the end of a
// run, and parses that report.
func (w *backgroundWrk) stop() (wrkResult, error) {
	if w.running() {
		_ = w.cmd.Process.Signal(syscall.SIGINT)
	}
	select {
	case <-w.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
		<-w.done
		return wrkResult{}, errors.New("wrk did not stop on SIGINT; killed")
	}
	r, err := parseWrk(w.stdout.String())
	if err != nil {
		return r, fmt.Errorf("background wrk: %w (exit %v); its output:\n%s", err, w.err, w.stdout.String())
	}
	return r, nil
}
