package app

// LocalPermissions exposes localPermissions to the test that holds it to
// its role on the bus.
var LocalPermissions = localPermissions
