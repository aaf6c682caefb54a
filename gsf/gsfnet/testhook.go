package gsfnet

// testHookStateChanged, when a test sets it (once, before any server starts, and never
// again), is called after each change a test may wait for: a session added or removed, a
// refusal counted, a group's membership changed, a request's buffer given back to the buffer
// budget, a session's FrameReader about to read (it has charged the budget for what it holds).
// It lets the package's tests wait for these events instead of polling. Production code never
// sets it: each event then costs one load of a nil function value.
var testHookStateChanged func()

// stateChanged calls testHookStateChanged, if set.
func stateChanged() {
	if h := testHookStateChanged; h != nil {
		h()
	}
}
