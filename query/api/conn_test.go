package api_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
	"github.com/zoneprice/zoneprice/query/access"
	"github.com/zoneprice/zoneprice/query/api"
)

// rawDeadline bounds every read and write of a rawConn. It is well beyond
// the server's own bounds (ReadTimeout and ReadHeaderTimeout, 5 s by
// default), so reaching it means the server neither answered nor closed.
const rawDeadline = 10 * time.Second

// rawConn is a connection for requests written by hand, as no HTTP client
// sends them: content that never comes, both framing headers, an oversized
// head. A server that holds it fails the test instead of hanging it.
type rawConn struct {
	net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.SetDeadline(time.Now().Add(rawDeadline)); err != nil {
		t.Fatal(err)
	}
	return &rawConn{Conn: c, r: bufio.NewReader(c)}
}

func (c *rawConn) send(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatalf("send: %v", err)
	}
}

// response reads the answer to a request of method, body and all.
func (c *rawConn) response(t *testing.T, method string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.ReadResponse(c.r, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read the answer's body: %v", err)
	}
	return resp, body
}

// closed checks that the server closes the connection without sending
// anything more: an end of file or a reset, not a timeout or more bytes.
func (c *rawConn) closed(t *testing.T) {
	t.Helper()
	var buf [512]byte
	n, err := c.r.Read(buf[:])
	var ne net.Error
	switch {
	case n > 0:
		t.Errorf("the server sent %q after its answer, want the connection closed", buf[:n])
	case errors.As(err, &ne) && ne.Timeout():
		t.Errorf("the connection is still open after %v, want it closed", rawDeadline)
	}
}

// checkRefusal checks an answer of the API's own: a problem with status
// and code, carrying the headers every answer carries, and Connection:
// close.
func checkRefusal(t *testing.T, resp *http.Response, body []byte, method string, status int, code string) {
	t.Helper()
	if resp.StatusCode != status || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("got %d %s %s, want %d application/problem+json", resp.StatusCode, resp.Header.Get("Content-Type"), body, status)
	}
	if !resp.Close {
		t.Error("no Connection: close, want the connection closed after the answer")
	}
	if resp.Header.Get("X-Request-Id") == "" || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("X-Request-Id %q, Access-Control-Allow-Origin %q: want the headers of every answer",
			resp.Header.Get("X-Request-Id"), resp.Header.Get("Access-Control-Allow-Origin"))
	}
	if method == http.MethodHead {
		return
	}
	var p contracts.Problem
	decode(t, body, &p)
	if p.Status != status || p.Code != code {
		t.Errorf("problem %+v, want status %d code %q", p, status, code)
	}
}

// TestRequestContentRefused sends requests with content, which no route
// takes, whole, never or a byte at a time: each is answered at once,
// without waiting for the content, and its connection closed within the
// server's read timeout, never held. GET, HEAD and OPTIONS are refused
// (413); other methods get their 405. Go's server answers an Expect it
// does not know itself (417), and then closes the connection in as
// little time.
func TestRequestContentRefused(t *testing.T) {
	// Bounds of a second keep the test quick; what it checks is that
	// there are bounds, and rawDeadline is far beyond them.
	cfg := api.DefaultConfig()
	cfg.Limits.Anonymous = access.Rate{}
	cfg.ReadHeaderTimeout, cfg.ReadTimeout = time.Second, time.Second
	addr := serveOn(t, &cfg, serving(t, baseEvents()...))
	const host = " HTTP/1.1\r\nHost: api.example\r\n"
	for _, tc := range []struct {
		name    string
		method  string
		request string
		// trickle sends a chunk of the body every 100 ms after the
		// request, for as long as the connection lasts.
		trickle bool
		status  int
		code    string // "" for an answer of Go's server
	}{
		{"declared, never sent", "GET", "GET /api/domains" + host + "Content-Length: 10\r\n\r\nab", false, 413, "http-413"},
		{"chunked, trickled", "GET", "GET /api/comparison/.com" + host + "Transfer-Encoding: chunked\r\n\r\n", true, 413, "http-413"},
		{"sent whole", "GET", "GET /api/domains" + host + "Content-Length: 5\r\n\r\nhello", false, 413, "http-413"},
		{"empty chunked", "GET", "GET /api/domains" + host + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", false, 413, "http-413"},
		{"HEAD", "HEAD", "HEAD /api/domains" + host + "Content-Length: 10\r\n\r\nab", false, 413, "http-413"},
		{"preflight", "OPTIONS", "OPTIONS /api/domains" + host + "Origin: https://example.org\r\nAccess-Control-Request-Method: GET\r\nContent-Length: 10\r\n\r\nab", false, 413, "http-413"},
		{"OPTIONS *", "OPTIONS", "OPTIONS *" + host + "Content-Length: 10\r\n\r\nab", false, 413, "http-413"},
		{"unknown path", "GET", "GET /nothing-here" + host + "Content-Length: 10\r\n\r\nab", false, 413, "http-413"},
		{"operations path", "GET", "GET /healthz" + host + "Content-Length: 10\r\n\r\nab", false, 413, "http-413"},
		{"other method", "POST", "POST /api/domains" + host + "Content-Length: 10\r\n\r\nab", false, 405, contracts.CodeMethodNotAllowed},
		{"waiting for 100-continue", "GET", "GET /api/domains" + host + "Expect: 100-continue\r\nContent-Length: 10\r\n\r\n", false, 413, "http-413"},
		{"unknown expectation", "GET", "GET /api/domains" + host + "Expect: teapot\r\nContent-Length: 10\r\n\r\nab", false, 417, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := dialRaw(t, addr)
			c.send(t, tc.request)
			if tc.trickle {
				stop, done := make(chan struct{}), make(chan struct{})
				go func() {
					defer close(done)
					tick := time.NewTicker(100 * time.Millisecond)
					defer tick.Stop()
					for {
						select {
						case <-stop:
							return
						case <-tick.C:
							if _, err := io.WriteString(c, "1\r\nx\r\n"); err != nil {
								return
							}
						}
					}
				}()
				t.Cleanup(func() {
					close(stop)
					<-done
				})
			}
			resp, body := c.response(t, tc.method)
			if tc.code == "" {
				if resp.StatusCode != tc.status || !resp.Close {
					t.Errorf("got %d, Connection: close %v; want Go's %d and the connection closed", resp.StatusCode, resp.Close, tc.status)
				}
			} else {
				checkRefusal(t, resp, body, tc.method, tc.status, tc.code)
			}
			c.closed(t)
		})
	}
}

// TestContentLengthWithTransferEncoding sends requests framed both by
// Content-Length and by Transfer-Encoding, the shape of request
// smuggling: a proxy that goes by the length sees one request, a server
// that goes by the chunks sees a second hidden in the first's body. The
// request is refused and the connection closed (RFC 9112 §6.1), so the
// hidden request is never read, let alone answered.
func TestContentLengthWithTransferEncoding(t *testing.T) {
	addr := serveOn(t, nil, serving(t, baseEvents()...))
	hidden := "GET /healthz HTTP/1.1\r\nHost: api.example\r\n\r\n"
	body := "0\r\n\r\n" + hidden
	for _, tc := range []struct {
		method, target string
		status         int
		code           string
	}{
		{"GET", "/api/domains", 413, "http-413"},
		{"OPTIONS", "*", 413, "http-413"},
		{"POST", "/api/domains", 405, contracts.CodeMethodNotAllowed},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			t.Parallel()
			for _, framing := range []string{
				"Content-Length: " + strconv.Itoa(len(body)) + "\r\nTransfer-Encoding: chunked\r\n",
				"Transfer-Encoding: chunked\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n",
			} {
				c := dialRaw(t, addr)
				c.send(t, tc.method+" "+tc.target+" HTTP/1.1\r\nHost: api.example\r\n"+framing+"\r\n"+body)
				resp, got := c.response(t, tc.method)
				checkRefusal(t, resp, got, tc.method, tc.status, tc.code)
				c.closed(t)
			}
		})
	}
}

// head is a GET of /healthz whose head, from its request line to the blank
// line that ends it, is size bytes long.
func head(size int) string {
	const start = "GET /healthz HTTP/1.1\r\nHost: api.example\r\nX-Pad: "
	return start + strings.Repeat("p", size-len(start)-len("\r\n\r\n")) + "\r\n\r\n"
}

// TestHeaderLimit sends heads at the documented limit and a byte over it,
// on a new connection and on one kept alive. The limit holds to the byte
// on a new connection; on a connection kept alive, Go's server does not
// count the part of a request it read while waiting for it, up to 4 KiB,
// so a head may pass that much over, never more.
func TestHeaderLimit(t *testing.T) {
	limit := api.DefaultConfig().MaxHeaderBytes
	addr := serveOn(t, nil, serving(t, baseEvents()...))
	for _, tc := range []struct {
		name   string
		size   int
		status int
	}{
		{"at the limit", limit, http.StatusOK},
		{"a byte over", limit + 1, http.StatusRequestHeaderFieldsTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialRaw(t, addr)
			c.send(t, head(tc.size))
			if resp, body := c.response(t, http.MethodGet); resp.StatusCode != tc.status {
				t.Errorf("a %d-byte head: got %d %s, want %d", tc.size, resp.StatusCode, body, tc.status)
			}
		})
	}
	t.Run("kept alive", func(t *testing.T) {
		c := dialRaw(t, addr)
		for i, tc := range []struct {
			size   int
			status int
		}{
			{200, http.StatusOK},
			{limit, http.StatusOK},
			{limit + 4<<10 + 1, http.StatusRequestHeaderFieldsTooLarge},
		} {
			c.send(t, head(tc.size))
			resp, body := c.response(t, http.MethodGet)
			if resp.StatusCode != tc.status {
				t.Errorf("request %d, a %d-byte head: got %d %s, want %d", i+1, tc.size, resp.StatusCode, body, tc.status)
			}
			if tc.status == http.StatusOK && resp.Close {
				t.Errorf("request %d: Connection: close, want the connection kept alive", i+1)
			}
		}
		c.closed(t)
	})
}

// TestEmptyContentServed checks that a request whose content is declared
// empty is no request with content: it is answered as any other, on a
// connection kept alive.
func TestEmptyContentServed(t *testing.T) {
	addr := serveOn(t, nil, serving(t, baseEvents()...))
	c := dialRaw(t, addr)
	for _, tc := range []struct {
		request string
		status  int
	}{
		{"GET /api/domains HTTP/1.1\r\nHost: api.example\r\nContent-Length: 0\r\n\r\n", http.StatusOK},
		{"POST /api/domains HTTP/1.1\r\nHost: api.example\r\nContent-Length: 0\r\n\r\n", http.StatusMethodNotAllowed},
		{"GET /api/domains HTTP/1.1\r\nHost: api.example\r\n\r\n", http.StatusOK},
	} {
		c.send(t, tc.request)
		resp, body := c.response(t, http.MethodGet)
		if resp.StatusCode != tc.status || resp.Close {
			t.Errorf("%q: got %d %s, Connection: close %v; want %d on a connection kept alive", tc.request, resp.StatusCode, body, resp.Close, tc.status)
		}
	}
}

// TestServerOwnAnswers: the answers Go's server writes itself, before the
// API sees the request, reach the client as the API's problem documents
// (problemListener), with the API's public headers, and the connection
// closed after them.
func TestServerOwnAnswers(t *testing.T) {
	addr := serveOn(t, nil, serving(t, baseEvents()...))
	const malformed = "the request is not well-formed HTTP/1.1: "
	for _, tc := range []struct {
		name    string
		request string
		status  int
		detail  string
	}{
		{"malformed request line", "GET /api/domains\r\nHost: api.example\r\n\r\n", 400, malformed + "a malformed request line, header field, Host or Content-Length"},
		{"no Host", "GET /api/domains HTTP/1.1\r\n\r\n", 400, malformed + "missing required Host header"},
		{"malformed Host", "GET /api/domains HTTP/1.1\r\nHost: a b\r\n\r\n", 400, malformed + "malformed Host header"},
		{"invalid header name", "GET /api/domains HTTP/1.1\r\nHost: api.example\r\nX Y: z\r\n\r\n", 400, malformed + "invalid header name"},
		{"malformed Content-Length", "GET /api/domains HTTP/1.1\r\nHost: api.example\r\nContent-Length: ten\r\n\r\n", 400, malformed + "a malformed request line, header field, Host or Content-Length"},
		{"head too large", head(api.DefaultConfig().MaxHeaderBytes + 1), 431, "the request's head (request line and header fields) is over 16384 bytes"},
		{"unknown transfer coding", "GET /api/domains HTTP/1.1\r\nHost: api.example\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "the request's Transfer-Encoding is not chunked, the only transfer coding this server takes"},
		{"HTTP/2 without upgrade", "GET /api/domains HTTP/2.0\r\nHost: api.example\r\n\r\n", 505, "this server speaks HTTP/1.1 and HTTP/1.0 only"},
		{"unknown expectation", "GET /api/domains HTTP/1.1\r\nHost: api.example\r\nExpect: teapot\r\n\r\n", 417, "the request's Expect is not 100-continue, the only expectation this server meets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := dialRaw(t, addr)
			c.send(t, tc.request)
			resp, body := c.response(t, http.MethodGet)
			var p contracts.Problem
			if err := json.Unmarshal(body, &p); err != nil {
				t.Fatalf("got %d %q %q, not a problem document: %v", resp.StatusCode, resp.Header.Get("Content-Type"), body, err)
			}
			want := contracts.Problem{Type: contracts.ProblemTypePrefix + "http-" + strconv.Itoa(tc.status), Title: http.StatusText(tc.status),
				Status: tc.status, Detail: tc.detail, Code: "http-" + strconv.Itoa(tc.status)}
			if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/problem+json" || p != want {
				t.Errorf("got %d %q %+v, want %d application/problem+json %+v", resp.StatusCode, resp.Header.Get("Content-Type"), p, tc.status, want)
			}
			if !resp.Close || resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("headers %v: want Connection: close and the API's public headers", resp.Header)
			}
			c.closed(t)
		})
	}
}
