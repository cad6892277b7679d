// Package smtptest is a real SMTP relay for tests, started inside the
// test: github.com/emersion/go-smtp on 127.0.0.1, offering STARTTLS with a
// certificate made for the test and AUTH PLAIN, refusing mail before both.
// It keeps what it received for the test to read.
package smtptest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"net"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/zoneprice/zoneprice/query/mail"
)

// The relay's credentials.
const (
	Username = "zoneprice"
	Password = "relay-password"
)

// Message is one mail the relay accepted.
type Message struct {
	From string
	To   []string
	Data []byte
	// TLS and User say how it came: over TLS, authenticated as User.
	TLS  bool
	User string
}

// Parse reads the message's headers and body.
func (m Message) Parse(t testing.TB) *netmail.Message {
	t.Helper()
	msg, err := netmail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		t.Fatalf("received mail does not parse: %v", err)
	}
	return msg
}

// Server is a running relay.
type Server struct {
	// Host and Port are where it listens; CAFile is a PEM file of its
	// certificate, for the client to trust.
	Host   string
	Port   int
	CAFile string

	mu   sync.Mutex
	msgs []Message
}

// Start starts a relay that stops when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	cert, pemCert := certificate(t)
	s := &Server{Host: "127.0.0.1", CAFile: filepath.Join(t.TempDir(), "relay-ca.pem")}
	if err := os.WriteFile(s.CAFile, pemCert, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &session{s: s, c: c}, nil }))
	srv.Domain = "relay.test"
	srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.MaxMessageBytes = 1 << 20
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Port = ln.Addr().(*net.TCPAddr).Port
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return s
}

// Config is how a client mails through the relay, from from: STARTTLS
// with the relay's certificate, authenticated.
func (s *Server) Config(from string) mail.Config {
	return mail.Config{From: from, Host: s.Host, Port: s.Port, TLS: mail.TLSStartTLS,
		Username: Username, Password: Password, CAFile: s.CAFile, Timeout: 10 * time.Second}
}

// Addr is host:port.
func (s *Server) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// Messages returns what the relay received so far, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

type session struct {
	s    *Server
	c    *smtp.Conn
	user string
	msg  Message
}

var errAuth = &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "authentication required"}

func (x *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (x *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != Username || pass != Password {
			return errors.New("invalid credentials")
		}
		x.user = user
		return nil
	}), nil
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	if _, tls := x.c.TLSConnectionState(); !tls || x.user == "" {
		return errAuth
	}
	x.msg = Message{From: from, TLS: true, User: x.user}
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.msg.To = append(x.msg.To, to)
	return nil
}

func (x *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	x.msg.Data = b
	x.s.mu.Lock()
	x.s.msgs = append(x.s.msgs, x.msg)
	x.s.mu.Unlock()
	return nil
}

func (x *session) Reset()        { x.msg = Message{} }
func (x *session) Logout() error { return nil }

// certificate makes a self-signed certificate for 127.0.0.1.
func certificate(t testing.TB) (tls.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "relay.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pemCert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	cert, err := tls.X509KeyPair(pemCert, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	if err != nil {
		t.Fatal(err)
	}
	return cert, pemCert
}

// Parts returns the message's plain-text and HTML parts, decoded.
func (m Message) Parts(t testing.TB) (text, html string) {
	t.Helper()
	msg := m.Parse(t)
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/alternative" {
		t.Fatalf("mail is %q (%v), want multipart/alternative", msg.Header.Get("Content-Type"), err)
	}
	r := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("mail part: %v", err)
		}
		var body io.Reader = p
		if p.Header.Get("Content-Transfer-Encoding") == "base64" {
			body = base64.NewDecoder(base64.StdEncoding, p)
		}
		b, err := io.ReadAll(body) // multipart decodes quoted-printable itself
		if err != nil {
			t.Fatalf("mail part: %v", err)
		}
		switch ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); ct {
		case "text/plain":
			text = string(b)
		case "text/html":
			html = string(b)
		}
	}
	if text == "" || html == "" {
		t.Fatalf("mail without a plain-text and an HTML part:\n%s", m.Data)
	}
	return text, html
}
