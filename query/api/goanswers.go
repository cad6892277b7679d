package api

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// Go's HTTP server refuses some requests before any handler sees them (a
// malformed request line or header, a head over MaxHeaderBytes, a transfer
// coding it does not know, a protocol version other than 1.x, an Expect it
// does not meet) and writes its answer itself, as plain text, with no hook
// to change it. problemListener hands the server connections that turn
// those answers into the API's problem documents on their way out: each is
// written by one Write straight to the connection, in a shape no handler's
// answer has (the status line followed at once by goErrorHeaders, or a 417,
// which no route answers), so it is recognised by its first bytes, and the
// cost to every other write is a comparison of its first few bytes.
type problemListener struct {
	net.Listener
	maxHeaderBytes int
}

func (l problemListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &problemConn{Conn: c, maxHeaderBytes: l.maxHeaderBytes}, nil
}

// problemConn is a connection of problemListener.
type problemConn struct {
	net.Conn
	maxHeaderBytes int
}

func (c *problemConn) Write(p []byte) (int, error) {
	answer, ok := goAnswer(p, c.maxHeaderBytes, time.Now())
	if !ok {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(answer); err != nil {
		return 0, err
	}
	return len(p), nil
}

// CloseWrite is the wrapped connection's: Go's server half-closes a
// connection after its 431, so that the client reads the answer before
// the connection goes.
func (c *problemConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// goErrorHeaders is what net/http's conn.serve writes after the status
// line of its own plain-text answers.
const goErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// goAnswer returns the problem document that stands for p when p is one
// of Go's own answers.
func goAnswer(p []byte, maxHeaderBytes int, now time.Time) ([]byte, bool) {
	const proto = "HTTP/1.1 "
	if len(p) < len(proto)+3 || !bytes.HasPrefix(p, []byte(proto)) || (p[len(proto)] != '4' && p[len(proto)] != '5') {
		return nil, false
	}
	status, err := strconv.Atoi(string(p[len(proto) : len(proto)+3]))
	if err != nil {
		return nil, false
	}
	var detail string
	switch line, _, plain := bytes.Cut(p, []byte(goErrorHeaders)); {
	case status == http.StatusExpectationFailed:
		detail = "the request's Expect is not 100-continue, the only expectation this server meets"
	case !plain:
		return nil, false
	case status == http.StatusRequestHeaderFieldsTooLarge:
		detail = "the request's head (request line and header fields) is over " + strconv.Itoa(maxHeaderBytes) + " bytes"
	case status == http.StatusNotImplemented:
		detail = "the request's Transfer-Encoding is not chunked, the only transfer coding this server takes"
	case status == http.StatusHTTPVersionNotSupported:
		detail = "this server speaks HTTP/1.1 and HTTP/1.0 only"
	default:
		// "HTTP/1.1 400 Bad Request: missing required Host header": the
		// reason, where Go gives one, is a fixed text of its own.
		detail = "the request is not well-formed HTTP/1.1: a malformed request line, header field, Host or Content-Length"
		if _, reason, ok := bytes.Cut(line, []byte(": ")); ok {
			detail = "the request is not well-formed HTTP/1.1: " + string(reason)
		}
	}
	return problemAnswer(status, detail, now), true
}

// problemAnswer is a whole HTTP/1.1 answer carrying a problem document,
// with the headers every answer of the API carries (publicHeaders) and the
// connection closed after it, as Go's server closes it.
func problemAnswer(status int, detail string, now time.Time) []byte {
	body, _ := json.Marshal(contracts.NewProblem(status, "http-"+strconv.Itoa(status), http.StatusText(status), detail))
	h := http.Header{
		"Access-Control-Allow-Origin":   allowOrigin,
		"Access-Control-Expose-Headers": exposeHeaders,
		"X-Content-Type-Options":        nosniff,
		"Referrer-Policy":               noReferrer,
		"Content-Security-Policy":       noContent,
		"Cross-Origin-Resource-Policy":  crossOrigin,
		"Content-Type":                  {"application/problem+json"},
		"Cache-Control":                 {"no-store"},
		"Connection":                    {"close"},
		"Content-Length":                {strconv.Itoa(len(body))},
		"Date":                          {now.UTC().Format(http.TimeFormat)},
	}
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\n")
	_ = h.Write(&b)
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}
