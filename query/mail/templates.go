package mail

import (
	"bytes"
	"embed"
	htmltemplate "html/template"
	"io/fs"
	"math"
	"strconv"
	texttemplate "text/template"
)

//go:embed templates
var footerFS embed.FS

// Links are what every mail to a subscriber links to: the site, the
// subscriber's page to change what it gets, and its one-click unsubscribe
// (the List-Unsubscribe header's too).
type Links struct {
	Site, Manage, Unsubscribe string
}

// Templates are the mails of one package: each a template of the same
// name in a plain-text file and in an HTML file, which ends with
// {{template "footer" .}}, the links every mail carries.
type Templates struct {
	text *texttemplate.Template
	html *htmltemplate.Template
}

// MustParse parses the plain-text mails in fsys's file text and the HTML
// ones in its file html, beside the footer. It panics on a template that
// does not parse: they are the program's own, parsed once at start.
func MustParse(fsys fs.FS, text, html string) *Templates {
	t := texttemplate.Must(texttemplate.ParseFS(footerFS, "templates/footer.txt"))
	h := htmltemplate.Must(htmltemplate.ParseFS(footerFS, "templates/footer.html"))
	return &Templates{text: texttemplate.Must(t.ParseFS(fsys, text)), html: htmltemplate.Must(h.ParseFS(fsys, html))}
}

// Render renders the mail named kind to the address to: both its parts,
// given data's fields beside the links (Site, Manage, Unsubscribe) and
// the Subject.
func (t *Templates) Render(to, kind, subject string, l Links, data map[string]any) (*Message, error) {
	data["Site"], data["Manage"], data["Unsubscribe"], data["Subject"] = l.Site, l.Manage, l.Unsubscribe, subject
	var text, html bytes.Buffer
	if err := t.text.ExecuteTemplate(&text, kind, data); err != nil {
		return nil, err
	}
	if err := t.html.ExecuteTemplate(&html, kind, data); err != nil {
		return nil, err
	}
	return &Message{To: to, Subject: subject, Text: text.String(), HTML: html.String(), Unsubscribe: l.Unsubscribe}, nil
}

// Percent writes p as a mail does: "12.5%".
func Percent(p float64) string {
	return strconv.FormatFloat(math.Round(p*10)/10, 'f', -1, 64) + "%"
}
