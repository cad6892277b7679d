package ingesttest

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// API is a scripted fake of a registrar's HTTP API. Scripted steps answer
// the first requests, one each; after them every request gets the current
// answer (a body, or a handler of the adapter's own). Every request is
// counted and shown to the adapter's check, and a request the check
// refuses fails the test when it ends.
type API struct {
	check func(*http.Request) error

	mu       sync.Mutex
	current  http.HandlerFunc
	steps    []http.HandlerFunc
	requests int
	bad      []string // what check said of the requests it refused
}

// NewAPI starts a server answering with body. check, when not nil, says
// what is wrong with a request the registrar would not expect; it runs
// before any answer, so it may read the request's body or form for the
// handlers after it.
func NewAPI(t testing.TB, body []byte, check func(*http.Request) error) (*API, *httptest.Server) {
	t.Helper()
	a := &API{check: check, current: Body(body)}
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		for _, b := range a.bad {
			t.Errorf("unexpected request: %s", b)
		}
	})
	return a, srv
}

// ServeHTTP counts and checks the request, then answers it with the next
// scripted step or, when none is left, the current answer.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var problem error
	if a.check != nil {
		problem = a.check(r)
	}
	a.mu.Lock()
	a.requests++
	if problem != nil {
		a.bad = append(a.bad, problem.Error())
	}
	answer := a.current
	if len(a.steps) > 0 {
		answer, a.steps = a.steps[0], a.steps[1:]
	}
	a.mu.Unlock()
	answer(w, r)
}

// Serve scripts the answers to the next requests, after any scripted
// before.
func (a *API) Serve(steps ...http.HandlerFunc) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.steps = append(a.steps, steps...)
}

// SetBody makes body the current answer.
func (a *API) SetBody(body []byte) { a.SetHandler(Body(body)) }

// SetHandler makes h the current answer, for an API that answers by path,
// page or request header.
func (a *API) SetHandler(h http.HandlerFunc) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.current = h
}

// Requests returns how many requests the server has seen.
func (a *API) Requests() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.requests
}

// Body answers 200 with body, labelled JSON when it looks like JSON and
// otherwise as net/http sniffs it (XML with a declaration, HTML, text),
// as the registrars label theirs.
func Body(body []byte) http.HandlerFunc {
	ctype := http.DetectContentType(body)
	if t := bytes.TrimSpace(body); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		ctype = "application/json"
	}
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", ctype)
		_, _ = w.Write(body)
	}
}

// Status answers with code and its status text, after setting header,
// given as name and value pairs ("Retry-After", "1").
func Status(code int, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		http.Error(w, http.StatusText(code), code)
	}
}

// Hang answers nothing until the client gives up on the request, or the
// test ends, so that a client timeout can be tested.
func Hang(t testing.TB) http.HandlerFunc {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	return func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
}

// PlainGet is a Suite's Check for a source that asks for one document
// with a GET and nothing else: no body, no query.
func PlainGet(r *http.Request) error {
	if r.Method != http.MethodGet || r.ContentLength > 0 || r.URL.RawQuery != "" {
		return fmt.Errorf("%s %s with %d bytes", r.Method, r.URL, r.ContentLength)
	}
	return nil
}

// GetOf is a Suite's Check for a source that asks for one document at
// path (with its query, as the registrar spells it) with a GET and
// nothing else.
func GetOf(path string) func(*http.Request) error {
	return func(r *http.Request) error {
		if r.Method != http.MethodGet || r.ContentLength > 0 || r.URL.RequestURI() != path {
			return fmt.Errorf("%s %s with %d bytes", r.Method, r.URL.RequestURI(), r.ContentLength)
		}
		return nil
	}
}

// GetJSON is a Suite's Check for a source that asks for a static JSON
// file with a GET asking for JSON, naming the service as its agent.
func GetJSON(r *http.Request) error {
	if err := PlainGet(r); err != nil || r.Header.Get("Accept") != "application/json" {
		return fmt.Errorf("%s %s Accept %q", r.Method, r.URL, r.Header.Get("Accept"))
	}
	if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "zoneprice-ingest/") {
		return fmt.Errorf("User-Agent %q does not name the service", ua)
	}
	return nil
}
