// Package mail is how zoneprice's mail leaves, and what every mail has in
// common, whoever sends it (the subscription form, the daily digests, the
// announcements).
//
// A mail is rendered from its package's Templates, beside the footer every
// mail ends with (Links: the site, the page to change what the address
// gets, one-click unsubscribe), into a Message: one recipient, a
// plain-text and an HTML part, the List-Unsubscribe headers (RFC 8058). A
// Sender hands it to the Mailer, counting every mail by kind and result
// and logging a failure without the recipient. The Mailer is SMTP to a
// relay (github.com/wneessen/go-mail), or an Outbox, a directory of .eml
// files, where no relay is configured (make run). Config says which.
//
// It knows no subscriber: package subscribe signs the links and says who
// is sent what. Package smtptest, beside it, is a real relay for tests.
package mail
