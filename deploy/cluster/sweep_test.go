//go:build integration && unix

// The sweep needs flock(2), hence unix; elsewhere the suite runs without it.

package cluster

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// TestMain removes what killed runs left behind (a run stopped by Ctrl-C,
// the test timeout or kill -9 never reaches its cleanups) before any
// scenario creates anything, so that one killed run does not break the
// next.
func TestMain(m *testing.M) {
	if os.Getenv("ZONEPRICE_SKIP_DOCKER") != "1" {
		lock, err := sweepBeforeRun(logStderr)
		if err != nil {
			logStderr("%v", err)
			os.Exit(1)
		}
		if lock != nil {
			defer lock.Close()
		}
	}
	m.Run()
}

func logStderr(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "failure suite: "+format+"\n", args...)
}

// sweepBeforeRun sweeps the stale containers and networks of earlier runs,
// unless a run on this machine is still going, and returns the run lock,
// held shared, for the caller to keep open until the run ends.
func sweepBeforeRun(logf func(format string, args ...any)) (*os.File, error) {
	pool, err := dockertest.NewPool("")
	if err == nil {
		err = pool.Client.Ping()
	}
	if err != nil {
		return nil, nil // newPool fails every scenario, saying why
	}
	lock, exclusive, err := lockRun(filepath.Join(os.TempDir(), "zoneprice-failure-suite.lock"))
	if err != nil {
		logf("not sweeping the leftovers of killed runs: %v", err)
		return nil, nil
	}
	if !exclusive {
		logf("another run of the suite on this machine is in progress: not sweeping %s* containers and networks", namePrefix)
		return lock, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := sweepStale(ctx, pool.Client, namePrefix, logf); err != nil {
		lock.Close()
		return nil, fmt.Errorf("sweep the leftovers of killed runs: %w", err)
	}
	if err := flock(lock, syscall.LOCK_SH); err != nil {
		lock.Close()
		return nil, fmt.Errorf("share the run lock %s: %w", lock.Name(), err)
	}
	return lock, nil
}

// lockRun takes the run lock at path: exclusively when no other run on
// this machine holds it, and then the caller may sweep and must share it
// before creating anything; shared otherwise, once any sweep in progress
// is done. Every run holds it shared while its scenarios run, so a sweep
// never removes the objects of a run in progress on the same machine. The
// kernel drops the lock when the process ends, however it ends, so a
// killed run never stands in the way of the next one's sweep.
func lockRun(path string) (lock *os.File, exclusive bool, err error) {
	// Open before create: fs.protected_regular refuses O_CREATE on
	// another user's file in /tmp.
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o644)
	}
	if err != nil {
		return nil, false, err
	}
	err = flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return f, true, nil
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		err = flock(f, syscall.LOCK_SH)
	}
	if err != nil {
		f.Close()
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, false, nil
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// sweepStale removes the containers, then the networks, whose names begin
// with prefix and that carry suiteLabel, logging one line for each.
// Containers go first, running or not, because a network cannot be
// removed while a container is attached to it.
func sweepStale(ctx context.Context, client *dc.Client, prefix string, logf func(format string, args ...any)) error {
	// Docker's name filter matches anywhere in a name: the prefix is
	// checked again below.
	containers, err := client.ListContainers(dc.ListContainersOptions{
		All:     true,
		Filters: map[string][]string{"name": {prefix}, "label": {suiteLabel}},
		Context: ctx,
	})
	if err != nil {
		return fmt.Errorf("list containers: %w", err)
	}
	var errs []error
	for _, ct := range containers {
		name := containerName(ct.Names)
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		err := client.RemoveContainer(dc.RemoveContainerOptions{ID: ct.ID, Force: true, RemoveVolumes: true, Context: ctx})
		var gone *dc.NoSuchContainer
		switch {
		case errors.As(err, &gone):
		case err != nil:
			errs = append(errs, fmt.Errorf("remove container %s: %w", name, err))
		default:
			logf("removed stale container %s (%s, %s)", name, ct.Image, ct.State)
		}
	}
	networks, err := client.FilteredListNetworks(dc.NetworkFilterOpts{
		"name":  {prefix: true},
		"label": {suiteLabel: true},
	})
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("list networks: %w", err))...)
	}
	for _, n := range networks {
		if !strings.HasPrefix(n.Name, prefix) {
			continue
		}
		err := client.RemoveNetwork(n.ID)
		var gone *dc.NoSuchNetwork
		switch {
		case errors.As(err, &gone):
		case err != nil:
			errs = append(errs, fmt.Errorf("remove network %s: %w", n.Name, err))
		default:
			logf("removed stale network %s", n.Name)
		}
	}
	return errors.Join(errs...)
}

// containerName is a container's own name among the names the API lists,
// which also holds the aliases other containers link it by ("/a/alias").
func containerName(names []string) string {
	for _, n := range names {
		n = strings.TrimPrefix(n, "/")
		if !strings.Contains(n, "/") {
			return n
		}
	}
	return ""
}

// TestSweepStale leaves behind what a killed run would, beside objects that
// are not the suite's, sweeps, and checks that exactly the stale ones are
// gone. It sweeps its own prefix, not namePrefix, so that it cannot remove
// what a run in progress has made.
func TestSweepStale(t *testing.T) {
	pool := newPool(t)
	prefix := namePrefix + randomHex(t, 3) + "-"
	label := map[string]string{suiteLabel: "1"}
	node := "zoneprice/nats-server:" + imageTag

	type object struct {
		name      string
		container bool
		labels    map[string]string
		start     bool // a container: run it, on the stale network (prefix+"nats")
		wantGone  bool
	}
	objects := []object{
		{name: prefix + "nats", labels: label, wantGone: true},
		{name: prefix + "nats-1", container: true, labels: label, start: true, wantGone: true},
		{name: prefix + "provision", container: true, labels: label, wantGone: true},
		{name: "keep-" + prefix + "nats", labels: label},
		{name: "keep-" + prefix + "nats-1", container: true, labels: label},
		{name: prefix + "unlabelled"},
		{name: prefix + "unlabelled-1", container: true},
	}

	ids := map[string]string{}
	for _, o := range objects {
		if o.container {
			continue
		}
		n, err := pool.Client.CreateNetwork(dc.CreateNetworkOptions{Name: o.name, Driver: "bridge", Labels: o.labels})
		if err != nil {
			t.Fatalf("create network %s: %v", o.name, err)
		}
		t.Cleanup(func() {
			var gone *dc.NoSuchNetwork
			if err := pool.Client.RemoveNetwork(n.ID); err != nil && !errors.As(err, &gone) {
				t.Logf("remove network %s: %v", o.name, err)
			}
		})
		ids[o.name] = n.ID
	}
	for _, o := range objects {
		if !o.container {
			continue
		}
		hc := &dc.HostConfig{RestartPolicy: dc.RestartPolicy{Name: "no"}}
		if o.start {
			hc.NetworkMode = ids[prefix+"nats"]
		}
		ct, err := pool.Client.CreateContainer(dc.CreateContainerOptions{
			Name:       o.name,
			Config:     &dc.Config{Image: node, Cmd: []string{"--port", "4222"}, Labels: o.labels},
			HostConfig: hc,
		})
		if err != nil {
			t.Fatalf("create container %s: %v", o.name, err)
		}
		t.Cleanup(func() {
			err := pool.Client.RemoveContainer(dc.RemoveContainerOptions{ID: ct.ID, Force: true, RemoveVolumes: true})
			var gone *dc.NoSuchContainer
			if err != nil && !errors.As(err, &gone) {
				t.Logf("remove container %s: %v", o.name, err)
			}
		})
		ids[o.name] = ct.ID
		if o.start {
			if err := pool.Client.StartContainer(ct.ID, nil); err != nil {
				t.Fatalf("start container %s: %v", o.name, err)
			}
		}
	}

	var logged []string
	logf := func(format string, args ...any) {
		logged = append(logged, fmt.Sprintf(format, args...))
		t.Logf(format, args...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := sweepStale(ctx, pool.Client, prefix, logf); err != nil {
		t.Fatalf("sweep: %v", err)
	}

	var swept []string
	for _, o := range objects {
		var err error
		if o.container {
			_, err = pool.Client.InspectContainer(ids[o.name])
		} else {
			_, err = pool.Client.NetworkInfo(ids[o.name])
		}
		var noContainer *dc.NoSuchContainer
		var noNetwork *dc.NoSuchNetwork
		gone := errors.As(err, &noContainer) || errors.As(err, &noNetwork)
		if !gone && err != nil {
			t.Fatalf("inspect %s: %v", o.name, err)
		}
		if gone != o.wantGone {
			t.Errorf("%s: gone after the sweep = %v, want %v", o.name, gone, o.wantGone)
		}
		if o.wantGone {
			swept = append(swept, o.name)
		}
	}
	if len(logged) != len(swept) {
		t.Errorf("logged %d lines, want one per swept object (%d): %q", len(logged), len(swept), logged)
	}
	for _, name := range swept {
		if !slices.ContainsFunc(logged, func(l string) bool { return slices.Contains(strings.Fields(l), name) }) {
			t.Errorf("no log line names %s: %q", name, logged)
		}
	}
}

// TestRunLock checks that only the first of two runs at once may sweep,
// and that the lock is free again once both have ended.
func TestRunLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.lock")
	first, exclusive, err := lockRun(path)
	if err != nil {
		t.Fatal(err)
	}
	if !exclusive {
		t.Fatal("first run: lock not exclusive, want exclusive: it may sweep")
	}
	if err := flock(first, syscall.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	// A second open file stands for a second process: flock locks belong
	// to the open file, not the process.
	second, exclusive, err := lockRun(path)
	if err != nil {
		t.Fatal(err)
	}
	if exclusive {
		t.Error("second run while the first holds the lock: exclusive, want shared: it would sweep the first run's objects")
	}
	first.Close()
	second.Close()

	third, exclusive, err := lockRun(path)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	if !exclusive {
		t.Error("run after both ended: lock not exclusive, want exclusive: a killed run must not stop the next one's sweep")
	}
}
