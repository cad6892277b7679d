package contracts

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"regexp"
	"time"
	"unicode"
	"unicode/utf8"
)

// KeysBucket is the JetStream key-value bucket of subscriber API keys. Each
// entry is an APIKey record stored under its ID. The admin command writes
// it; query pods only read and watch it.
const KeysBucket = "ZONEPRICE_KEYS"

// APIKeyPrefix starts every API key, so that a key is recognisable in a
// configuration file or a leaked log, and cannot be confused with its ID.
const APIKeyPrefix = "zp_"

// The well-known tiers. Query pods decide what each allows; FreeTier is
// also what a client without a key gets.
const (
	FreeTier     = "free"
	StandardTier = "standard"
	ProTier      = "pro"
)

// APIKey is a subscriber key's record. The key itself is never stored: only
// its SHA-256, which is what a pod looks a presented key up by. A fast
// unsalted hash is right here because keys are 160 random bits, not
// passwords: there is no dictionary to try, so a slow or salted hash would
// only make every request slower without making a stolen bucket any more
// useful.
type APIKey struct {
	// ID names the key in the bucket, in the admin command and in logs.
	ID string `json:"id"`
	// Hash is the hex SHA-256 of the key.
	Hash string `json:"hash"`
	// Tier names the limits the key gets.
	Tier string `json:"tier"`
	// Note says whose key it is, for the operator.
	Note      string    `json:"note,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// MaxNoteLen bounds an APIKey's note, in bytes.
const MaxNoteLen = 200

var (
	hashPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)
	tierPattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)
)

// validKeyID reports whether id can be an API key's ID: 8 to 64 lower-case
// letters and digits (a webhook delivery's subject carries one).
func validKeyID(id string) bool {
	return len(id) >= 8 && len(id) <= 64 && allBytes(id, func(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' })
}

// ValidateTier reports whether name can name a tier: it ends up in flags
// and metric labels, so it is short and plain.
func ValidateTier(name string) error {
	if !tierPattern.MatchString(name) {
		return invalid("tier", "%q is not a tier name: a lower-case letter, then up to 31 lower-case letters, digits and hyphens", name)
	}
	return nil
}

// Validate reports the first problem with the record, naming the field.
func (k *APIKey) Validate() error {
	switch {
	case !validKeyID(k.ID):
		return invalid("id", "%q is not 8 to 64 lower-case letters and digits", k.ID)
	case !hashPattern.MatchString(k.Hash):
		return invalid("hash", "is not a hex SHA-256")
	case k.CreatedAt.IsZero():
		return invalid("created_at", "missing")
	}
	if err := ValidateTier(k.Tier); err != nil {
		return err
	}
	return ValidateNote(k.Note)
}

// ValidateNote reports whether note can be an APIKey's note: printable
// UTF-8 (notes are shown in a terminal) of at most MaxNoteLen bytes.
func ValidateNote(note string) error {
	if len(note) > MaxNoteLen {
		return invalid("note", "longer than %d bytes", MaxNoteLen)
	}
	if !utf8.ValidString(note) {
		return invalid("note", "not UTF-8")
	}
	for _, r := range note {
		if !unicode.IsPrint(r) {
			return invalid("note", "holds the unprintable %U", r)
		}
	}
	return nil
}

// Sum returns the record's hash as bytes, as HashAPIKey gives them.
func (k *APIKey) Sum() ([32]byte, error) {
	var sum [32]byte
	if !hashPattern.MatchString(k.Hash) {
		return sum, invalid("hash", "is not a hex SHA-256")
	}
	_, err := hex.Decode(sum[:], []byte(k.Hash))
	return sum, err
}

// keyEncoding writes keys in lower case, without padding: easy to select
// with a double click and to read over the phone.
var keyEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewAPIKey makes a key of 160 random bits and its record. The key is
// returned once, to be shown once; only the record is stored.
func NewAPIKey(tier, note string, now time.Time) (string, APIKey, error) {
	var secret [20]byte
	var id [8]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return "", APIKey{}, fmt.Errorf("random key: %w", err)
	}
	if _, err := rand.Read(id[:]); err != nil {
		return "", APIKey{}, fmt.Errorf("random key id: %w", err)
	}
	key := APIKeyPrefix + keyEncoding.EncodeToString(secret[:])
	sum := HashAPIKey(key)
	rec := APIKey{
		ID:        hex.EncodeToString(id[:]),
		Hash:      hex.EncodeToString(sum[:]),
		Tier:      tier,
		Note:      note,
		CreatedAt: now.UTC().Truncate(time.Second),
	}
	if err := rec.Validate(); err != nil {
		return "", APIKey{}, err
	}
	return key, rec, nil
}

// HashAPIKey is the SHA-256 of a key as a client presents it. A pod hashes
// the key of every request that has one, so a key of the usual length is
// copied to the stack rather than converted on the heap.
func HashAPIKey(key string) [32]byte {
	var buf [64]byte
	return sha256.Sum256(append(buf[:0], key...))
}
