package subscribe

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"time"

	"github.com/zoneprice/zoneprice/contracts"
)

// purpose is what a link may do. It is signed into the link, so that a
// link made for one thing does nothing else.
type purpose byte

const (
	// purposeConfirm confirms an address; it expires after ConfirmTTL.
	purposeConfirm purpose = 'c'
	// purposeManage shows and changes a subscription and unsubscribes
	// it; every mail carries one, valid for LinkTTL.
	purposeManage purpose = 'm'
)

// A link token is base64url of purpose (1 byte), expiry (8 bytes, Unix
// seconds), the subscriber's key (the 32 bytes of its SHA-256), and the
// first 16 bytes of HMAC-SHA256 over those 41 bytes with the secret: 76
// characters, which name no one.
const (
	tokenBody = 1 + 8 + 32
	tokenMAC  = 16
)

var (
	errBadToken     = errors.New("the link is not valid")
	errExpiredToken = errors.New("the link has expired")
)

// tokens signs and checks link tokens.
type tokens struct {
	secret []byte
	now    func() time.Time
}

// make returns a token for key (a SubscriberKey) and p, expiring after ttl.
func (t tokens) make(p purpose, key string, ttl time.Duration) string {
	var b [tokenBody + tokenMAC]byte
	b[0] = byte(p)
	binary.BigEndian.PutUint64(b[1:9], uint64(t.now().Add(ttl).Unix()))
	if _, err := hex.Decode(b[9:tokenBody], []byte(key)); err != nil {
		panic("subscribe: token for a key that is not a SubscriberKey")
	}
	copy(b[tokenBody:], t.mac(b[:tokenBody]))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// check returns the key a token of purpose p names, or errBadToken, or
// errExpiredToken for a token that was good.
func (t tokens) check(p purpose, token string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) != tokenBody+tokenMAC || !hmac.Equal(b[tokenBody:], t.mac(b[:tokenBody])) || purpose(b[0]) != p {
		return "", errBadToken
	}
	if t.now().Unix() > int64(binary.BigEndian.Uint64(b[1:9])) {
		return "", errExpiredToken
	}
	key := hex.EncodeToString(b[9:tokenBody])
	if !contracts.ValidSubscriberKey(key) {
		return "", errBadToken
	}
	return key, nil
}

func (t tokens) mac(body []byte) []byte {
	h := hmac.New(sha256.New, t.secret)
	h.Write([]byte("zoneprice subscribe link\x00"))
	h.Write(body)
	return h.Sum(nil)[:tokenMAC]
}

// csrf is the form token bound to the browser's CSRF cookie value: the
// form carries it in a hidden field, and a post whose field is not the
// one of its cookie is refused. An attacker's page can make a browser
// post, but can neither read the cookie nor sign another.
func (t tokens) csrf(cookie string) string {
	h := hmac.New(sha256.New, t.secret)
	h.Write([]byte("zoneprice subscribe csrf\x00"))
	h.Write([]byte(cookie))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

func hmacEqual(a, b string) bool { return hmac.Equal([]byte(a), []byte(b)) }
