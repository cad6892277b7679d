package contracts

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/net/idna"
)

// zoneProfile is IDNA2008 as UTS 46 applies it to lookups (case folding,
// width mapping, non-transitional, STD3 rules, bidi and joiner checks),
// with DNS length limits enforced so that empty or overlong labels fail.
var zoneProfile = idna.New(
	idna.MapForLookup(),
	idna.Transitional(false),
	idna.BidiRule(),
	idna.VerifyDNSLength(true),
)

// ErrMalformedZone is wrapped by every error NormalizeZone returns.
var ErrMalformedZone = errors.New("malformed zone")

// NumericTLDError is the error NormalizeZone returns for a name whose
// top-level label is all digits (".8888"): no name of the DNS, where no
// top-level label is numeric, though naming systems beside it (Handshake)
// have such names. It is an ErrMalformedZone. Ingest tells these names
// apart from unreadable rows: they are names outside the DNS root, which
// its root-zone guard counts (SkipNotInRoot).
type NumericTLDError struct {
	// Name is the name in the canonical form of a zone (".8888",
	// ".abc.8888").
	Name  string
	input string
}

func (e *NumericTLDError) Error() string {
	return fmt.Sprintf("%v %q: top-level label is numeric", ErrMalformedZone, e.input)
}

// Unwrap makes the error an ErrMalformedZone.
func (e *NumericTLDError) Unwrap() error { return ErrMalformedZone }

// Zone is a normalised zone name: ASCII is the canonical key (lower-case
// A-labels with a leading dot, ".co.uk", ".xn--p1ai") and Unicode is the
// form people read (".рф").
type Zone struct {
	ASCII   string
	Unicode string
}

// NormalizeZone turns a zone as a person types it into its canonical form.
// It accepts an optional leading dot and an optional trailing (root) dot,
// any letter case, Unicode or A-label form: "COM", ".com.", ".рф" and
// "xn--p1ai" all normalise. The result has at least one label, every label
// is a valid host label, and the rightmost label is not all digits (no
// top-level domain is).
func NormalizeZone(s string) (Zone, error) {
	if canonicalLDH(s) {
		return Zone{ASCII: s, Unicode: s}, nil
	}
	name := strings.TrimPrefix(s, ".")
	name = strings.TrimSuffix(name, ".")
	if name == "" {
		return Zone{}, fmt.Errorf("%w %q: empty", ErrMalformedZone, s)
	}
	ascii, err := zoneProfile.ToASCII(name)
	if err != nil {
		return Zone{}, fmt.Errorf("%w %q: %s", ErrMalformedZone, s, idnaReason(err))
	}
	labels := strings.Split(ascii, ".")
	for _, l := range labels {
		if err := checkLabel(l); err != nil {
			return Zone{}, fmt.Errorf("%w %q: label %q %s", ErrMalformedZone, s, l, err)
		}
	}
	if isDigits(labels[len(labels)-1]) {
		return Zone{}, &NumericTLDError{Name: "." + ascii, input: s}
	}
	uni, err := zoneProfile.ToUnicode(ascii)
	if err != nil {
		return Zone{}, fmt.Errorf("%w %q: %s", ErrMalformedZone, s, idnaReason(err))
	}
	return Zone{ASCII: "." + ascii, Unicode: "." + uni}, nil
}

// checkLabel enforces what the IDNA profile leaves to the caller: letters,
// digits and inner hyphens only (the profile maps but does not reject every
// such case after punycode decoding).
func checkLabel(l string) error {
	if l == "" || len(l) > 63 {
		return errors.New("must be 1 to 63 characters")
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0 && i < len(l)-1:
		default:
			return fmt.Errorf("has invalid character %q", c)
		}
	}
	return nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// idnaReason strips the idna package's "idna: " prefix so messages read as
// one sentence.
func idnaReason(err error) string {
	return strings.TrimPrefix(err.Error(), "idna: ")
}

// IsCanonicalZone reports whether s is already a zone's canonical key.
func IsCanonicalZone(s string) bool {
	z, err := NormalizeZone(s)
	return err == nil && z.ASCII == s
}

// canonicalLDH reports whether s is a canonical zone that IDNA processing
// would return unchanged: a leading dot, then lower-case letter-digit-hyphen
// labels that are not A-labels and have no hyphens in their third and
// fourth positions (which IDNA reserves), within DNS lengths. It spares the
// hot path (every event names a zone) the IDNA machinery; anything else
// takes the full path.
func canonicalLDH(s string) bool {
	if len(s) < 2 || len(s) > 254 || s[0] != '.' {
		return false
	}
	start := 1
	for i := 1; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			continue
		}
		l := s[start:i]
		if checkLabel(l) != nil || (len(l) >= 4 && l[2] == '-' && l[3] == '-') {
			return false
		}
		if i == len(s) && isDigits(l) {
			return false
		}
		start = i + 1
	}
	return true
}
