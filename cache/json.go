package cache

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/zoneprice/zoneprice/contracts"
)

// The appenders below write JSON without reflection: bodies are rendered
// once per data version, and a large catalog renders in milliseconds.

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string, escaping what JSON requires plus
// U+2028 and U+2029 (so the body is also safe inside a script) and replacing
// invalid UTF-8 with U+FFFD, as encoding/json does.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

func appendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// appendTime writes t in RFC 3339, UTC; the zero time is null.
func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339)
	return append(b, '"')
}

// appendMeta writes the zone's IANA type and categories; a zone without
// metadata has a null type and no categories.
func appendMeta(b []byte, meta *contracts.ZoneMeta) []byte {
	b = append(b, `,"type":`...)
	if meta != nil {
		b = appendString(b, meta.Type)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"categories":[`...)
	if meta != nil {
		for i, c := range meta.Categories {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, c)
		}
	}
	return append(b, ']')
}
