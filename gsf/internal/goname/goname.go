// Package goname turns the protocol's UPPER_SNAKE names into Go names, for the generators of
// gsf's constants and of the message catalog, which must agree (gsf.MsgGetClientVersionInfo and
// messages.GetClientVersionInfoRequest).
package goname

import "strings"

// initialisms are written in capitals, as Go names do.
var initialisms = map[string]bool{"ok": true, "db": true, "io": true, "id": true, "oid": true, "sku": true, "cms": true, "npc": true, "url": true, "api": true}

// Camel turns "GET_CLIENT_VERSION_INFO" into "GetClientVersionInfo" and "GET_NPCS" into
// "GetNPCs".
func Camel(s string) string {
	var b strings.Builder
	for _, part := range strings.Split(strings.ToLower(s), "_") {
		if part == "" {
			continue
		}
		if initialisms[part] {
			b.WriteString(strings.ToUpper(part))
			continue
		}
		if p, ok := strings.CutSuffix(part, "s"); ok && initialisms[p] { // plurals: NPCs, OIDs
			b.WriteString(strings.ToUpper(p) + "s")
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}
