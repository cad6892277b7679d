package onecom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"golang.org/x/net/html"
)

// A Next.js App Router page carries the data its components render as the
// React Server Components "flight" stream, pushed to self.__next_f by
// inline scripts:
//
//	<script>(self.__next_f=self.__next_f||[]).push([0])</script>
//	<script>self.__next_f.push([1,"2:I[123,[],\"Prices\"]\n4:[\"$\",\"$L2\",null,{...}]\n"])</script>
//
// Each push's argument is a JSON array: its first element the chunk's kind
// (0 the bootstrap, 1 a piece of the stream, 2 form state, 3 binary), the
// second a piece of the stream as a JSON string. The pieces of kind 1, in
// order, are the stream, cut anywhere (a row may span two pushes). The
// stream is a series of rows, "<hex id>:" then either "T<hex length>," and
// that many bytes of text, or a tag of capital letters ("I", "HL", "E", or
// none) and one JSON value ending the line. This file reads it with an HTML
// tokenizer and encoding/json, never with regular expressions.

// flightValues returns the JSON values of the flight stream a page pushes,
// in order. A page cut short (no </html>) or pushing no stream fails.
func flightValues(page []byte) ([]json.RawMessage, error) {
	tail := page[max(0, len(page)-1024):]
	if !bytes.Contains(bytes.ToLower(tail), []byte("</html>")) {
		return nil, errors.New("the page does not end with </html>: cut short")
	}
	stream, err := flightStream(page)
	if err != nil {
		return nil, err
	}
	if len(stream) == 0 {
		return nil, errors.New("the page pushes no self.__next_f data: not a Next.js page")
	}
	return flightRows(stream)
}

// flightStream concatenates the pieces of kind 1 the page's inline scripts
// push to self.__next_f.
func flightStream(page []byte) ([]byte, error) {
	var stream []byte
	z := html.NewTokenizer(bytes.NewReader(page))
	inScript := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			return stream, nil
		case html.StartTagToken:
			name, _ := z.TagName()
			inScript = string(name) == "script"
		case html.EndTagToken, html.SelfClosingTagToken:
			inScript = false
		case html.TextToken:
			if !inScript {
				continue
			}
			piece, ok, err := pushed(z.Text())
			if err != nil {
				return nil, err
			}
			if ok {
				stream = append(stream, piece...)
			}
		}
	}
}

// pushed reads one inline script: the piece of the stream it pushes, and
// whether it pushes one (a script that is no push, or pushes another kind,
// does not).
func pushed(script []byte) ([]byte, bool, error) {
	s := bytes.TrimSpace(script)
	at := bytes.Index(s, []byte("self.__next_f"))
	if at < 0 {
		return nil, false, nil
	}
	open := bytes.Index(s[at:], []byte(".push("))
	end := bytes.LastIndexByte(s, ')')
	if open < 0 || end < at+open+len(".push(") {
		return nil, false, nil
	}
	arg := s[at+open+len(".push(") : end]
	var chunk []any
	if err := json.Unmarshal(arg, &chunk); err != nil || len(chunk) == 0 {
		return nil, false, fmt.Errorf("a self.__next_f push of %.60q is not a JSON array", arg)
	}
	if kind, ok := chunk[0].(float64); !ok || kind != 1 {
		return nil, false, nil
	}
	var piece string
	if len(chunk) > 1 {
		piece, _ = chunk[1].(string)
	}
	if len(chunk) < 2 || piece == "" && chunk[1] != "" {
		return nil, false, fmt.Errorf("a self.__next_f push of kind 1 carries no string: %.60q", arg)
	}
	return []byte(piece), true, nil
}

// flightRows splits a flight stream into its rows and returns the JSON
// value of each that has one (text rows have none).
func flightRows(stream []byte) ([]json.RawMessage, error) {
	var values []json.RawMessage
	for i := 0; i < len(stream); {
		if stream[i] == '\n' {
			i++
			continue
		}
		colon := bytes.IndexByte(stream[i:], ':')
		if colon < 1 || !isHex(stream[i:i+colon]) {
			return nil, fmt.Errorf("flight row at byte %d has no id: %.40q", i, stream[i:])
		}
		i += colon + 1
		if i < len(stream) && stream[i] == 'T' {
			comma := bytes.IndexByte(stream[i:], ',')
			n, err := strconv.ParseUint(string(stream[i+1:i+max(comma, 1)]), 16, 32)
			if comma < 0 || err != nil || i+comma+1+int(n) > len(stream) {
				return nil, fmt.Errorf("flight text row at byte %d is cut short or has no length", i)
			}
			i += comma + 1 + int(n)
			continue
		}
		for i < len(stream) && stream[i] >= 'A' && stream[i] <= 'Z' {
			i++ // the row's tag
		}
		end := bytes.IndexByte(stream[i:], '\n')
		if end < 0 {
			return nil, fmt.Errorf("flight row at byte %d does not end: the stream is cut short", i)
		}
		values = append(values, stream[i:i+end]) // checked as it is decoded
		i += end + 1
	}
	return values, nil
}

// isHex reports a row id: hexadecimal digits.
func isHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return len(b) > 0
}
