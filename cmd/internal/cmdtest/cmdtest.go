// Package cmdtest helps the commands' tests and the bench run a command for
// real: a loopback port to tell a child process before it listens
// (PortAddr, FreePort), watching it over HTTP, and the all-in-one's NATS for
// the commands that join it.
package cmdtest

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/zoneprice/zoneprice/cmd/internal/app"
)

// AllInOneNATS starts the all-in-one's embedded NATS as zoneprice starts it
// (app.StartLocal), with its store and the local users' credentials in
// dataDir, on a random loopback port, until the test ends. Other commands
// join it at its ClientURL; the test reads it through its Connect.
func AllInOneNATS(t testing.TB, dataDir string) *app.LocalNATS {
	t.Helper()
	srv, err := app.StartLocal(dataDir, net.JoinHostPort("127.0.0.1", strconv.Itoa(server.RANDOM_PORT)), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	})
	return srv
}

// Poll GETs url until ok accepts the answer, failing the test with the last
// answer if that does not happen within the given time.
func Poll(t testing.TB, url string, within time.Duration, ok func(status int, body []byte) bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	last := "no answer"
	for {
		resp, err := http.Get(url)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if ok(resp.StatusCode, body) {
				return
			}
			last = resp.Status + ": " + string(body)
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: not as expected within %v; last: %.300s", url, within, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Status200 accepts any 200 answer.
func Status200(status int, _ []byte) bool { return status == http.StatusOK }
