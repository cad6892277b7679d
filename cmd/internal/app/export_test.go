package app

// LocalPermissions exposes localPermissions to the tests that hold it to
// deploy/nats/accounts.conf.
var LocalPermissions = localPermissions
