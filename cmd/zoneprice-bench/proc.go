package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// readyTimeout bounds how long a child server may take to answer.
const readyTimeout = 2 * time.Minute

// child is a server process the bench started. It runs in its own process
// group, so stopping it stops anything it started, and a terminal's Ctrl-C
// reaches only the bench, which then stops it.
type child struct {
	name string
	cmd  *exec.Cmd
	log  string // file holding its stdout and stderr
	url  string // http://host:port it serves on
	// metricsURL is where it serves /metrics (and /debug/pprof/), when
	// not at url.
	metricsURL string
	done       chan struct{}
	err        error // from Wait, once done is closed
}

// startChild starts argv with its output in dir/name.log.
func startChild(dir, name, url string, argv ...string) (*child, error) {
	logPath := filepath.Join(dir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	// Pdeathsig also takes the child down if the bench itself is killed
	// without a chance to clean up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, log: logPath, url: url, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		f.Close()
		close(c.done)
	}()
	return c, nil
}

// stop asks the process group to terminate, and kills it if it has not
// after five seconds. It returns once the child has exited.
func (c *child) stop() {
	select {
	case <-c.done:
		return
	default:
	}
	pgid := c.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-c.done
	}
}

// exitError describes how a child that ended before being stopped ended,
// with the end of its log.
func (c *child) exitError() error {
	how := fmt.Sprint(c.err)
	if c.err == nil {
		// The servers exit 0 only when a signal asks them to, and the
		// bench signals them only in stop.
		how = "status 0: something outside the bench sent it SIGTERM or SIGINT"
	}
	return fmt.Errorf("%s (pid %d) exited early (%s); last log lines:\n%s", c.name, c.cmd.Process.Pid, how, c.logTail(10))
}

func (c *child) logTail(n int) string {
	b, err := os.ReadFile(c.log)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// waitOK polls path on the child until it answers 200, the child exits, or
// readyTimeout passes.
func (c *child) waitOK(ctx context.Context, path string) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url+path, nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-c.done:
			return c.exitError()
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("%s: no 200 from %s within %v; last log lines:\n%s", c.name, path, readyTimeout, c.logTail(10))
			}
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// memSample is a child's memory at one moment.
type memSample struct {
	when     string
	rss, hwm int64 // bytes: current and peak resident set
	err      error
	// heapInuse and heapGoal are the Go runtime's view, from the child's
	// /metrics: heap spans in use, and the heap size at which the next
	// GC starts (with GOGC=100, about twice the heap live after the last
	// one). Zero when /metrics could not be read.
	heapInuse, heapGoal int64
}

// readMemory reads VmRSS and VmHWM from /proc/<pid>/status.
func readMemory(pid int) (rss, hwm int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Bytes()
		var dst *int64
		switch {
		case bytes.HasPrefix(line, []byte("VmRSS:")):
			dst = &rss
		case bytes.HasPrefix(line, []byte("VmHWM:")):
			dst = &hwm
		default:
			continue
		}
		// "VmRSS:	  123456 kB"
		f := strings.Fields(string(line))
		if len(f) != 3 || f[2] != "kB" {
			return 0, 0, fmt.Errorf("unexpected line in /proc/%d/status: %q", pid, line)
		}
		kb, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/%d/status: %w", pid, err)
		}
		*dst = kb << 10
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	if rss == 0 {
		return 0, 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
	}
	return rss, hwm, nil
}

// memory samples the child's memory; a failure to read /proc is reported
// in the sample, and one to read /metrics leaves the heap figures zero.
func (c *child) memory(ctx context.Context, when string) memSample {
	rss, hwm, err := readMemory(c.cmd.Process.Pid)
	m := memSample{when: when, rss: rss, hwm: hwm, err: err}
	if metrics, err := scrape(ctx, c.metrics()+"/metrics", "go_memstats_heap_inuse_bytes", "go_memstats_next_gc_bytes"); err == nil {
		m.heapInuse, m.heapGoal = int64(metrics[0]), int64(metrics[1])
	}
	return m
}

// metrics is the base URL of the child's /metrics.
func (c *child) metrics() string {
	if c.metricsURL != "" {
		return c.metricsURL
	}
	return c.url
}

// heapProfile saves the child's heap profile, after a collection, to path
// and returns the top of it as go tool pprof prints it: where the memory
// goes. The child's binary symbolises it.
func (c *child) heapProfile(ctx context.Context, path, binary string) (string, error) {
	return c.profile(ctx, "heap?gc=1", 30*time.Second, path, binary, "-sample_index=inuse_space")
}

// cpuProfile saves a CPU profile of the child's next d to path and returns
// its top, by time spent in each function and its callees.
func (c *child) cpuProfile(ctx context.Context, d time.Duration, path, binary string) (string, error) {
	return c.profile(ctx, fmt.Sprintf("profile?seconds=%d", int(d/time.Second)), d+30*time.Second, path, binary, "-cum")
}

// profile saves the child's /debug/pprof/<query> to path and returns the
// top of it.
func (c *child) profile(ctx context.Context, query string, timeout time.Duration, path, binary string, pprofArgs ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := get(ctx, http.DefaultClient, c.metrics()+"/debug/pprof/"+query)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, resp.body, 0o644); err != nil {
		return "", err
	}
	args := append(append([]string{"tool", "pprof", "-top", "-nodecount=20"}, pprofArgs...), binary, path)
	out, err := exec.CommandContext(ctx, "go", args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go tool pprof: %w: %s", err, out)
	}
	return string(out), nil
}

// scrape reads the named unlabelled samples from a Prometheus text
// exposition, in the order asked.
func scrape(ctx context.Context, url string, names ...string) ([]float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := get(ctx, http.DefaultClient, url)
	if err != nil {
		return nil, err
	}
	found := map[string]float64{}
	for line := range strings.Lines(string(resp.body)) {
		name, value, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			found[name] = v
		}
	}
	out := make([]float64, len(names))
	for i, n := range names {
		v, ok := found[n]
		if !ok {
			return nil, fmt.Errorf("%s: no sample %s", url, n)
		}
		out[i] = v
	}
	return out, nil
}
