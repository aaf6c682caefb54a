package gsf

import (
	_ "embed"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
)

//go:generate go run ./internal/enumgen enums.json enums_gen.go

// enumsJSON is the reference's table of service classes, message types, result codes, app codes
// and string-valued enums (github.com/dv1x3r/amazing-core, names and values only).
//
//go:embed enums.json
var enumsJSON []byte

// ServiceClass is the svcClass of a header: which service a message is for. Its String method
// returns the reference's name.
type ServiceClass int32

// ResultCode is the resultCode of a response header (0 is OK).
type ResultCode int32

// AppCode is the application-level error code of a response header (0 is OK).
type AppCode int32

// String returns the name of the service class, or "ServiceClass(n)".
func (c ServiceClass) String() string {
	return nameOr(ServiceClassName(c), "ServiceClass", int32(c))
}

// String returns the name of the result code, or "ResultCode(n)".
func (c ResultCode) String() string { return nameOr(ResultCodeName(c), "ResultCode", int32(c)) }

// String returns the name of the app code, or "AppCode(n)".
func (c AppCode) String() string { return nameOr(AppCodeName(c), "AppCode", int32(c)) }

func nameOr(name, typ string, v int32) string {
	if name != "" {
		return name
	}
	return typ + "(" + strconv.Itoa(int(v)) + ")"
}

// enumTable is one table of enums.json in both directions.
type enumTable struct {
	byValue map[int32]string
	byName  map[string]int32
}

var enums = sync.OnceValue(func() map[string]enumTable {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(enumsJSON, &raw); err != nil {
		panic("gsf: embedded enums.json: " + err.Error())
	}
	out := make(map[string]enumTable, len(raw))
	for key, msg := range raw {
		if key == "_meta" {
			continue
		}
		var m map[string]int32
		if err := json.Unmarshal(msg, &m); err != nil {
			panic("gsf: embedded enums.json: " + key + ": " + err.Error())
		}
		t := enumTable{byValue: make(map[int32]string, len(m)), byName: m}
		for name, v := range m {
			t.byValue[v] = name
		}
		out[key] = t
	}
	return out
})

func lookup(table string, v int32) string { return enums()[table].byValue[v] }

// ServiceClassName returns the name of a service class (USER_SERVER, SYNC_SERVER, LOCATION,
// CLIENT), or "" if it has none.
func ServiceClassName(class ServiceClass) string { return lookup("serviceClass", int32(class)) }

// ResultCodeName returns the name of a result code, or "".
func ResultCodeName(code ResultCode) string { return lookup("resultCode", int32(code)) }

// AppCodeName returns the name of an app code, or "".
func AppCodeName(code AppCode) string { return lookup("appCode", int32(code)) }

// messageTable returns the message-type table that applies to a service class, as the
// reference's MessageTypeText does: user messages for USER_SERVER, sync messages for
// SYNC_SERVER, client messages for CLIENT (server-to-client notifies).
func messageTable(class ServiceClass) string {
	switch class {
	case SvcUserServer:
		return "userMessageType"
	case SvcSyncServer:
		return "syncMessageType"
	case SvcClient:
		return "clientMessageType"
	}
	return ""
}

// MessageTypeName returns the name of a message type within its service class (for example
// GET_CLIENT_VERSION_INFO for 18, 566), or "" if it has none.
func MessageTypeName(class ServiceClass, msgType int32) string {
	t := messageTable(class)
	if t == "" {
		return ""
	}
	return lookup(t, msgType)
}

// ServiceClassValue returns the service class of a name (case-insensitive).
func ServiceClassValue(name string) (ServiceClass, bool) {
	v, ok := value("serviceClass", name)
	return ServiceClass(v), ok
}

// MessageTypeValue returns the value of a message type name within a service class
// (case-insensitive).
func MessageTypeValue(class ServiceClass, name string) (int32, bool) {
	t := messageTable(class)
	if t == "" {
		return 0, false
	}
	return value(t, name)
}

// ResultCodeValue returns the result code of a name (case-insensitive).
func ResultCodeValue(name string) (ResultCode, bool) {
	v, ok := value("resultCode", name)
	return ResultCode(v), ok
}

// AppCodeValue returns the app code of a name (case-insensitive).
func AppCodeValue(name string) (AppCode, bool) {
	v, ok := value("appCode", name)
	return AppCode(v), ok
}

func value(table, name string) (int32, bool) {
	v, ok := enums()[table].byName[strings.ToUpper(strings.TrimSpace(name))]
	return v, ok
}

// EnumNames returns the name → value table of one of the string-valued enums that travel on the
// wire as their names (sessionStatus, chatChannelTypeValue, onlineStatusValue), or of any other
// table of the reference (serviceClass, resultCode, appCode, userMessageType, syncMessageType,
// clientMessageType). The map is a copy.
func EnumNames(table string) map[string]int32 {
	m := enums()[table].byName
	if m == nil {
		return nil
	}
	out := make(map[string]int32, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
