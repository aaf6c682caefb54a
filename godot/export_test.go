package godot

// NewKeyHashForTest returns the key hash of decoding for dialect d, with one random seed.
func NewKeyHashForTest(d Dialect) func(k any) (uint64, bool) { return newKeyHasher(d).hash }
