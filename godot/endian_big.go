//go:build armbe || arm64be || m68k || mips || mips64 || mips64p32 || ppc || ppc64 || s390 || s390x || shbe || sparc || sparc64

package godot

// bigEndian reports whether the machine stores the most significant byte of a word first.
const bigEndian = true
