package contracts

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"
)

func TestNormalizeZone(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		wantASCII   string
		wantUnicode string
	}{
		{name: "leading dot", in: ".com", wantASCII: ".com", wantUnicode: ".com"},
		{name: "no dot", in: "com", wantASCII: ".com", wantUnicode: ".com"},
		{name: "upper case", in: "COM", wantASCII: ".com", wantUnicode: ".com"},
		{name: "root dot", in: ".com.", wantASCII: ".com", wantUnicode: ".com"},
		{name: "second level", in: "co.uk", wantASCII: ".co.uk", wantUnicode: ".co.uk"},
		{name: "second level upper case", in: ".CO.UK", wantASCII: ".co.uk", wantUnicode: ".co.uk"},
		{name: "cyrillic", in: ".рф", wantASCII: ".xn--p1ai", wantUnicode: ".рф"},
		{name: "a-label", in: "xn--p1ai", wantASCII: ".xn--p1ai", wantUnicode: ".рф"},
		{name: "a-label upper case", in: ".XN--P1AI", wantASCII: ".xn--p1ai", wantUnicode: ".рф"},
		{name: "fullwidth letters", in: "ｃｏｍ", wantASCII: ".com", wantUnicode: ".com"},
		{name: "fullwidth dot", in: "ｃｏ．ｕｋ", wantASCII: ".co.uk", wantUnicode: ".co.uk"},
		{name: "ideographic dot", in: "co。uk", wantASCII: ".co.uk", wantUnicode: ".co.uk"},
		// Non-transitional processing keeps ß; transitional would have
		// mapped it to "ss" and made .straße the same zone as .strasse.
		{name: "sharp s", in: "straße", wantASCII: ".xn--strae-oqa", wantUnicode: ".straße"},
		{name: "sharp s capitalised", in: ".Straße", wantASCII: ".xn--strae-oqa", wantUnicode: ".straße"},
		{name: "sharp s a-label", in: "xn--strae-oqa", wantASCII: ".xn--strae-oqa", wantUnicode: ".straße"},
		{name: "double s stays double s", in: "STRASSE", wantASCII: ".strasse", wantUnicode: ".strasse"},
		{name: "digits below the top level", in: "123.com", wantASCII: ".123.com", wantUnicode: ".123.com"},
		{name: "63 character label", in: strings.Repeat("a", 63), wantASCII: "." + strings.Repeat("a", 63), wantUnicode: "." + strings.Repeat("a", 63)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeZone(tt.in)
			if err != nil {
				t.Fatalf("NormalizeZone(%q) error: %v", tt.in, err)
			}
			if got.ASCII != tt.wantASCII {
				t.Errorf("NormalizeZone(%q).ASCII = %q, want %q", tt.in, got.ASCII, tt.wantASCII)
			}
			if got.Unicode != tt.wantUnicode {
				t.Errorf("NormalizeZone(%q).Unicode = %q, want %q", tt.in, got.Unicode, tt.wantUnicode)
			}
		})
	}
}

func TestNormalizeZoneMalformed(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{name: "empty", in: ""},
		{name: "only a dot", in: "."},
		{name: "two dots", in: ".."},
		{name: "empty inner label", in: "a..b"},
		{name: "empty leading label", in: "..com"},
		{name: "empty trailing label", in: ".com.."},
		{name: "leading hyphen", in: "-com"},
		{name: "trailing hyphen", in: "com-"},
		{name: "underscore", in: "c_m"},
		{name: "numeric", in: "123"},
		{name: "numeric top level", in: "co.123"},
		{name: "64 character label", in: strings.Repeat("a", 64)},
		{name: "slash", in: "com/evil"},
		{name: "space", in: "exa mple"},
		{name: "bare ace prefix", in: "xn--"},
		{name: "invalid punycode", in: "xn--zz"},
		{name: "punycode of a control character", in: "xn--a"},
		{name: "hyphens in third and fourth position", in: "ab--c"},
		{name: "wildcard", in: "*"},
		{name: "subject wildcard", in: ">"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeZone(tt.in)
			if err == nil {
				t.Fatalf("NormalizeZone(%q) = %+v, want an error", tt.in, got)
			}
			if !errors.Is(err, ErrMalformedZone) {
				t.Errorf("NormalizeZone(%q) error %v does not wrap ErrMalformedZone", tt.in, err)
			}
			if got != (Zone{}) {
				t.Errorf("NormalizeZone(%q) = %+v with an error, want the zero Zone", tt.in, got)
			}
		})
	}
}

// TestNumericTLDError checks that a numeric top-level label, and only
// that, says which name it was: ingest counts such names as outside the
// DNS root rather than as unreadable rows.
func TestNumericTLDError(t *testing.T) {
	tests := []struct{ in, want string }{
		{"8888", ".8888"},
		{".8888.", ".8888"},
		{"ABC.8888", ".abc.8888"},
		{"co.123", ".co.123"},
	}
	for _, tt := range tests {
		_, err := NormalizeZone(tt.in)
		var nt *NumericTLDError
		if !errors.As(err, &nt) || nt.Name != tt.want || !errors.Is(err, ErrMalformedZone) {
			t.Errorf("NormalizeZone(%q) error %v (%+v), want a NumericTLDError of %s", tt.in, err, nt, tt.want)
		}
		if want := fmt.Sprintf("malformed zone %q: top-level label is numeric", tt.in); err == nil || err.Error() != want {
			t.Errorf("NormalizeZone(%q) error %v, want %q", tt.in, err, want)
		}
	}
	for _, in := range []string{"8888.com", "a_b", "-com", ""} {
		if _, err := NormalizeZone(in); errors.As(err, new(*NumericTLDError)) {
			t.Errorf("NormalizeZone(%q) error %v is a NumericTLDError", in, err)
		}
	}
}

func TestIsCanonicalZone(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{name: "canonical", in: ".com", want: true},
		{name: "canonical second level", in: ".co.uk", want: true},
		{name: "canonical a-label", in: ".xn--p1ai", want: true},
		{name: "canonical sharp s", in: ".xn--strae-oqa", want: true},
		{name: "no leading dot", in: "com", want: false},
		{name: "upper case", in: ".COM", want: false},
		{name: "root dot", in: ".com.", want: false},
		{name: "unicode form", in: ".рф", want: false},
		{name: "upper case a-label", in: ".XN--P1AI", want: false},
		{name: "fullwidth", in: ".ｃｏｍ", want: false},
		{name: "empty", in: "", want: false},
		{name: "malformed", in: ".a..b", want: false},
		{name: "numeric", in: ".123", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsCanonicalZone(tt.in); got != tt.want {
				t.Errorf("IsCanonicalZone(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzNormalizeZone(f *testing.F) {
	for _, s := range []string{
		".com", "COM", ".com.", "co.uk", ".рф", "xn--p1ai", "ｃｏｍ", "straße",
		"", ".", "a..b", "-com", "c_m", "co.123", "xn--zz", "exa mple", "．com",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		z, err := NormalizeZone(s)
		if err != nil {
			if !errors.Is(err, ErrMalformedZone) {
				t.Fatalf("NormalizeZone(%q) error %v does not wrap ErrMalformedZone", s, err)
			}
			return
		}
		if !strings.HasPrefix(z.ASCII, ".") {
			t.Errorf("NormalizeZone(%q).ASCII = %q, want a leading dot", s, z.ASCII)
		}
		for _, r := range z.ASCII {
			if r > unicode.MaxASCII || unicode.IsUpper(r) {
				t.Fatalf("NormalizeZone(%q).ASCII = %q, want lower-case ASCII", s, z.ASCII)
			}
		}
		if !IsCanonicalZone(z.ASCII) {
			t.Errorf("IsCanonicalZone(%q) = false for NormalizeZone(%q).ASCII", z.ASCII, s)
		}

		again, err := NormalizeZone(z.ASCII)
		if err != nil {
			t.Fatalf("NormalizeZone(%q) of NormalizeZone(%q).ASCII error: %v", z.ASCII, s, err)
		}
		if again != z {
			t.Errorf("NormalizeZone(%q) = %+v, want %+v (from %q)", z.ASCII, again, z, s)
		}
		fromUnicode, err := NormalizeZone(z.Unicode)
		if err != nil {
			t.Fatalf("NormalizeZone(%q) of NormalizeZone(%q).Unicode error: %v", z.Unicode, s, err)
		}
		if fromUnicode.ASCII != z.ASCII {
			t.Errorf("NormalizeZone(%q).ASCII = %q, want %q (from %q)", z.Unicode, fromUnicode.ASCII, z.ASCII, s)
		}

		token := ZoneToken(z.ASCII)
		if strings.ContainsAny(token, ".*>") || strings.IndexFunc(token, unicode.IsSpace) >= 0 {
			t.Errorf("ZoneToken(%q) = %q, want no '.', '*', '>' or white space", z.ASCII, token)
		}
		if token == "" {
			t.Errorf("ZoneToken(%q) is empty", z.ASCII)
		}
		if got := ZoneFromToken(token); got != z.ASCII {
			t.Errorf("ZoneFromToken(ZoneToken(%q)) = %q, want %q", z.ASCII, got, z.ASCII)
		}
	})
}
