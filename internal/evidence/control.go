package evidence

// Control records are lines a helper or hook sends on the same paths as
// events, to tell the service something about the events rather than send
// one: a held-back count (HeldBackKey) and a logpoint report
// (LogpointKey). Each is one JSON object with a single member named by its
// key. They take no sequence number and are never listed as events.

// IsControl reports whether a line that was validated as an event may be a
// control record: it failed event validation, or it carried a control
// record's member beside event fields. Only such lines are parsed again, so
// events pay nothing for control records.
func IsControl(rec Record, rej *Rejection) bool {
	if rej != nil {
		return true
	}
	for _, d := range rec.Dropped {
		if d == HeldBackKey || d == LogpointKey {
			return true
		}
	}
	return false
}
