package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"golang.org/x/sync/errgroup"

	"github.com/zoneprice/zoneprice/query/notify"
)

// bareHooksCommand is the hidden subcommand that runs the webhook
// throughput's baseline, a bare client, in a process of its own as
// notify's replica is one:
//
//	zoneprice-bench bare-hooks -gc-headroom BYTES PLAN
//
// It reads PLAN (a hookPlan, JSON), lets its heap grow by as many bytes
// between collections as notify's does, prints "ready", waits for a line
// on its standard input, posts every delivery, prints how many were not
// answered 2xx and the CPU time the posting took (nanoseconds), and exits. Inside the bench's process the client shared a
// heap with the embedded NATS server: some 550 MiB live once the history
// data set was in, which spared it nearly every collection (0.60 s a run
// against 0.74 to 0.79 s without the data set, the same requests), so the
// baseline depended on which other sections had run.
const bareHooksCommand = "bare-hooks"

// hookPlan is what the bare client sends: each endpoint once, and the
// deliveries notify made, by endpoint path.
type hookPlan struct {
	Endpoints  []planEndpoint `json:"endpoints"`
	Deliveries []planDelivery `json:"deliveries"`
}

type planEndpoint struct {
	Path   string `json:"path"`
	URL    string `json:"url"`
	Secret string `json:"secret"`
}

type planDelivery struct {
	Path string `json:"path"`
	Body []byte `json:"body"`
}

// runBareHooks is the bare-hooks subcommand.
func runBareHooks(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zoneprice-bench "+bareHooksCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	headroom := fs.Int64("gc-headroom", 0, "bytes the heap may grow by between collections (notify's); 0 leaves GOGC alone")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("bare-hooks: one plan file is required")
	}
	data, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("bare-hooks: %w", err)
	}
	var plan hookPlan
	if err := json.Unmarshal(data, &plan); err != nil {
		return fmt.Errorf("bare-hooks: plan: %w", err)
	}
	data = nil
	gcLikeService(*headroom, 1)
	if _, err := fmt.Fprintln(stdout, "ready"); err != nil {
		return err
	}
	if _, err := bufio.NewReader(stdin).ReadString('\n'); err != nil {
		return fmt.Errorf("bare-hooks: waiting to start: %w", err)
	}
	cpu := selfCPU()
	failures, err := bareHooks(ctx, plan, notify.DefaultConfig())
	if err != nil {
		return fmt.Errorf("bare-hooks: %w", err)
	}
	_, err = fmt.Fprintln(stdout, failures, int64(selfCPU()-cpu))
	return err
}

// bareHooks posts each delivery's body again, signed at sending as
// notify signs, from cfg.Workers goroutines through a client with
// notify's transport settings, and returns how many were not answered
// 2xx.
func bareHooks(ctx context.Context, plan hookPlan, cfg notify.Config) (int, error) {
	type endpoint struct {
		url    string
		signer *standardwebhooks.Webhook
	}
	byPath := map[string]endpoint{}
	for _, ep := range plan.Endpoints {
		wh, err := standardwebhooks.NewWebhook(ep.Secret)
		if err != nil {
			return 0, err
		}
		byPath[ep.Path] = endpoint{ep.URL, wh}
	}
	client := &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{
		Proxy: nil, MaxIdleConns: 1024, MaxIdleConnsPerHost: cfg.EndpointConcurrency,
		IdleConnTimeout: 90 * time.Second, DisableCompression: true,
	}}
	defer client.CloseIdleConnections()
	var next, failures atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for range cfg.Workers {
		g.Go(func() error {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(plan.Deliveries) {
					return nil
				}
				d := plan.Deliveries[i]
				ep, ok := byPath[d.Path]
				if !ok {
					return fmt.Errorf("delivery %d: no endpoint %s in the plan", i, d.Path)
				}
				id := "msg_bare" + strconv.Itoa(i)
				now := time.Now()
				sig, err := ep.signer.Sign(id, now, d.Body)
				if err != nil {
					return err
				}
				req, err := http.NewRequestWithContext(gctx, http.MethodPost, ep.url, bytes.NewReader(d.Body))
				if err != nil {
					return err
				}
				req.Header.Set(standardwebhooks.HeaderWebhookID, id)
				req.Header.Set(standardwebhooks.HeaderWebhookTimestamp, strconv.FormatInt(now.Unix(), 10))
				req.Header.Set(standardwebhooks.HeaderWebhookSignature, sig)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("User-Agent", cfg.UserAgent)
				resp, err := client.Do(req)
				if err != nil {
					return err
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode/100 != 2 {
					failures.Add(1)
				}
			}
		})
	}
	err := g.Wait()
	return int(failures.Load()), err
}

// bareDeliveries is a bare half: a bare-hooks process posts sent again,
// its heap growing between collections as much as notify's (from notify's
// metrics), timed as notify's half is, from the word to start to the last
// delivery's arrival.
func (b *bench) bareDeliveries(ctx context.Context, n *child, recv *hookReceiver, eps []hookEndpoint, sent []hookDelivery, wr *webhookResult) (err error) {
	defer func() {
		if err != nil && ctx.Err() == nil {
			wr.bareErr, err = err, errRunFailed
		}
	}()
	headroom, err := gcHeadroom(ctx, n)
	if err != nil {
		return err
	}
	path, err := b.writeHookPlan(eps, sent)
	if err != nil {
		return err
	}

	cctx, cancel := context.WithTimeout(ctx, hookDeadline)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(cctx, b.self, bareHooksCommand, "-gc-headroom", strconv.FormatInt(headroom, 10), path)
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	arrivals := &hookArrivals{total: len(sent), allIn: make(chan struct{})}
	// failed ends the process, if it runs still, and says what it and the
	// receivers made of the run.
	failed := func(err error) error {
		if cmd.ProcessState == nil {
			cancel()
			_ = cmd.Wait()
		}
		return fmt.Errorf("bare client: %w (%s; %d of %d deliveries arrived; %v): %s", err, cmd.ProcessState,
			len(arrivals.delivered()), len(sent), context.Cause(cctx), strings.TrimSpace(stderr.String()))
	}
	out := bufio.NewReader(outPipe)
	if _, err := out.ReadString('\n'); err != nil { // "ready"
		return failed(err)
	}
	recv.nextRun(arrivals.note)
	runtime.GC()
	cpu := selfCPU()
	start := time.Now()
	if _, err := io.WriteString(in, "go\n"); err != nil {
		return failed(err)
	}
	line, err := out.ReadString('\n')
	if err != nil {
		return failed(err)
	}
	if err := cmd.Wait(); err != nil {
		return failed(err)
	}
	var failures int
	var clientCPU time.Duration
	if _, err := fmt.Sscan(line, &failures, &clientCPU); err != nil {
		return failed(fmt.Errorf("its answer %q: %w", line, err))
	}
	select {
	case <-arrivals.allIn:
	default:
		return failed(fmt.Errorf("%d not answered 2xx", failures))
	}
	took := arrivals.last.Sub(start)
	b.log.Info("webhooks: bare client done", "took", took, "failures", failures)
	wr.bareTook = append(wr.bareTook, took)
	wr.bareCPU += clientCPU
	wr.bareRecvCPU += selfCPU() - cpu
	wr.bareFailures += failures
	return nil
}

// gcHeadroom is how many bytes notify's heap may grow by between
// collections: its heap goal less what was live at its last collection
// (at GOGC g the goal is live × (1 + g/100)).
func gcHeadroom(ctx context.Context, n *child) (int64, error) {
	m, err := scrape(ctx, n.metrics()+"/metrics", "go_memstats_next_gc_bytes", "go_gc_gogc_percent")
	if err != nil {
		return 0, fmt.Errorf("notify's heap goal: %w", err)
	}
	return int64(m[0] * m[1] / (100 + m[1])), nil
}

// writeHookPlan writes what the bare client is to send, sent to eps, to a
// file in the bench's temporary directory and returns its path.
func (b *bench) writeHookPlan(eps []hookEndpoint, sent []hookDelivery) (string, error) {
	plan := hookPlan{Endpoints: make([]planEndpoint, len(eps)), Deliveries: make([]planDelivery, len(sent))}
	for i, ep := range eps {
		plan.Endpoints[i] = planEndpoint{Path: ep.path, URL: ep.url, Secret: ep.secret}
	}
	for i, d := range sent {
		plan.Deliveries[i] = planDelivery{Path: d.path, Body: d.body}
	}
	data, err := json.Marshal(plan)
	if err != nil {
		return "", err
	}
	path := filepath.Join(b.tmp, "bare-hooks.json")
	return path, os.WriteFile(path, data, 0o600)
}
