package godot

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/gamewire/gamewire/godot/wire"
)

// The reflective encoder and decoder compile each Go type once into a plan and cache it
// (sync.Map keyed by reflect.Type). Plans of recursive types point to each other; they are built
// under planMu and published only when complete.

var (
	planMu   sync.Mutex
	encPlans sync.Map // reflect.Type → *encPlan
	decPlans sync.Map // reflect.Type → *decPlan
)

var (
	marshalerType   = reflect.TypeFor[Marshaler]()
	unmarshalerType = reflect.TypeFor[Unmarshaler]()
	rawVariantType  = reflect.TypeFor[RawVariant]()
	objectType      = reflect.TypeFor[Object]()
)

// typeWord returns the runtime type word of t, as it appears in interface values.
func typeWord(t reflect.Type) uptr {
	return typeOf(reflect.New(t).Elem().Interface())
}

// isDirect reports whether values of t are stored directly in an interface's data word rather
// than boxed: the compiler's rule for pointer-shaped types.
func isDirect(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() == 1 && isDirect(t.Elem())
	case reflect.Struct:
		return t.NumField() == 1 && isDirect(t.Field(0).Type)
	}
	return false
}

// real32Types are the single-precision math types whose memory layout is their wire layout.
var real32Types = map[reflect.Type]Type{
	reflect.TypeFor[Vector2]():     TypeVector2,
	reflect.TypeFor[Vector3]():     TypeVector3,
	reflect.TypeFor[Vector4]():     TypeVector4,
	reflect.TypeFor[Quaternion]():  TypeQuaternion,
	reflect.TypeFor[Color]():       TypeColor,
	reflect.TypeFor[Rect2]():       TypeRect2,
	reflect.TypeFor[Plane]():       TypePlane,
	reflect.TypeFor[AABB]():        TypeAABB,
	reflect.TypeFor[Transform2D](): TypeTransform2D,
}

// godotTypes are the other types of this package that have a Variant form, with that form.
var godotTypes = map[reflect.Type]Type{
	reflect.TypeFor[StringName]():   TypeStringName,
	reflect.TypeFor[NodePath]():     TypeNodePath,
	reflect.TypeFor[RID]():          TypeRID,
	reflect.TypeFor[ObjectID]():     TypeObject,
	reflect.TypeFor[*Object]():      TypeObject,
	objectType:                      TypeObject,
	reflect.TypeFor[Callable]():     TypeCallable,
	reflect.TypeFor[Signal]():       TypeSignal,
	reflect.TypeFor[*Dictionary]():  TypeDictionary,
	reflect.TypeFor[Dictionary]():   TypeDictionary,
	reflect.TypeFor[*TypedArray]():  TypeArray,
	reflect.TypeFor[TypedArray]():   TypeArray,
	reflect.TypeFor[Vector2i]():     TypeVector2i,
	reflect.TypeFor[Vector3i]():     TypeVector3i,
	reflect.TypeFor[Vector4i]():     TypeVector4i,
	reflect.TypeFor[Rect2i]():       TypeRect2i,
	reflect.TypeFor[Basis]():        TypeBasis,
	reflect.TypeFor[Transform3D]():  TypeTransform3D,
	reflect.TypeFor[Projection]():   TypeProjection,
	reflect.TypeFor[Vector2d]():     TypeVector2,
	reflect.TypeFor[Rect2d]():       TypeRect2,
	reflect.TypeFor[Vector3d]():     TypeVector3,
	reflect.TypeFor[Vector4d]():     TypeVector4,
	reflect.TypeFor[Transform2Dd](): TypeTransform2D,
	reflect.TypeFor[Planed]():       TypePlane,
	reflect.TypeFor[Quaterniond]():  TypeQuaternion,
	reflect.TypeFor[AABBd]():        TypeAABB,
	reflect.TypeFor[Basisd]():       TypeBasis,
	reflect.TypeFor[Transform3Dd](): TypeTransform3D,
	reflect.TypeFor[Projectiond]():  TypeProjection,
	reflect.TypeFor[[]Vector2d]():   TypePackedVector2Array,
	reflect.TypeFor[[]Vector3d]():   TypePackedVector3Array,
	reflect.TypeFor[[]Vector4d]():   TypePackedVector4Array,
}

// godotType returns the Variant type of one of this package's types.
func godotType(t reflect.Type) (Type, bool) {
	if vt, ok := real32Types[t]; ok {
		return vt, true
	}
	vt, ok := godotTypes[t]
	return vt, ok
}

// packedForm maps an element type to the fast-path slice type with the same layout, and its
// Variant type.
type packedForm struct {
	slice reflect.Type
	vt    Type
}

func packedFor(elem reflect.Type) (packedForm, bool) {
	if implementsMarshal(elem) != mNone || implementsUnmarshal(elem) {
		return packedForm{}, false
	}
	switch elem {
	case reflect.TypeFor[Vector2]():
		return packedForm{reflect.TypeFor[[]Vector2](), TypePackedVector2Array}, true
	case reflect.TypeFor[Vector3]():
		return packedForm{reflect.TypeFor[[]Vector3](), TypePackedVector3Array}, true
	case reflect.TypeFor[Vector4]():
		return packedForm{reflect.TypeFor[[]Vector4](), TypePackedVector4Array}, true
	case reflect.TypeFor[Color]():
		return packedForm{reflect.TypeFor[[]Color](), TypePackedColorArray}, true
	case reflect.TypeFor[Vector2d]():
		return packedForm{reflect.TypeFor[[]Vector2d](), TypePackedVector2Array}, true
	case reflect.TypeFor[Vector3d]():
		return packedForm{reflect.TypeFor[[]Vector3d](), TypePackedVector3Array}, true
	case reflect.TypeFor[Vector4d]():
		return packedForm{reflect.TypeFor[[]Vector4d](), TypePackedVector4Array}, true
	}
	switch elem.Kind() {
	case reflect.Uint8:
		return packedForm{reflect.TypeFor[[]byte](), TypePackedByteArray}, true
	case reflect.Int32:
		return packedForm{reflect.TypeFor[[]int32](), TypePackedInt32Array}, true
	case reflect.Int64:
		return packedForm{reflect.TypeFor[[]int64](), TypePackedInt64Array}, true
	case reflect.Float32:
		return packedForm{reflect.TypeFor[[]float32](), TypePackedFloat32Array}, true
	case reflect.Float64:
		return packedForm{reflect.TypeFor[[]float64](), TypePackedFloat64Array}, true
	case reflect.String:
		return packedForm{reflect.TypeFor[[]string](), TypePackedStringArray}, true
	}
	return packedForm{}, false
}

func implementsMarshal(t reflect.Type) marshalKind {
	if t.Kind() == reflect.Interface {
		return mNone
	}
	if t.Implements(marshalerType) {
		if t.Kind() == reflect.Pointer {
			return mNone // handled on the element, after the nil check
		}
		return mValue
	}
	if reflect.PointerTo(t).Implements(marshalerType) {
		return mPtr
	}
	return mNone
}

func implementsUnmarshal(t reflect.Type) bool {
	return t.Kind() != reflect.Interface && t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(unmarshalerType)
}

// variantTypeOf returns the single Variant type that every value of Go type t encodes as, for
// typed Arrays.
func variantTypeOf(t reflect.Type) (Type, error) {
	if implementsMarshal(t) != mNone {
		return 0, fmt.Errorf("%s implements Marshaler, so its Variant type is not known in advance", t)
	}
	if t == rawVariantType {
		return 0, fmt.Errorf("a RawVariant's Variant type is not known in advance")
	}
	if vt, ok := godotType(t); ok {
		return vt, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return TypeBool, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return TypeInt, nil
	case reflect.Float32, reflect.Float64:
		return TypeFloat, nil
	case reflect.String:
		return TypeString, nil
	case reflect.Slice:
		if ps, ok := packedFor(t.Elem()); ok {
			return ps.vt, nil
		}
		return TypeArray, nil
	case reflect.Array:
		return TypeArray, nil
	case reflect.Map, reflect.Struct:
		return TypeDictionary, nil
	}
	return 0, fmt.Errorf("values of %s have no single Variant type (nil or dynamic values)", t)
}

// structField is a field of a struct, or one promoted from an embedded struct, as the encoder and
// decoder see it.
type structField struct {
	name      string // the Dictionary key
	goName    string // the Go field path used in errors, e.g. "Pos" or "Base.ID"
	index     []int
	typ       reflect.Type
	tagged    bool
	omitEmpty bool
	typed     bool
	// steps are the embedded pointers to follow from the struct's address; offset is the field's
	// offset in the last struct reached.
	steps  []ptrStep
	offset uintptr
}

type ptrStep struct {
	off  uintptr
	elem reflect.Type
}

// parseTag splits a `godot:"name,opt,opt"` tag.
func parseTag(tag string) (name string, omitEmpty, typed bool, bad string) {
	name, opts, _ := strings.Cut(tag, ",")
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		switch o {
		case "omitempty":
			omitEmpty = true
		case "typed":
			typed = true
		case "":
		default:
			bad = o
		}
	}
	return
}

// typeFields returns the fields of struct type t that encode, with encoding/json's rules:
// exported fields, plus the exported fields of embedded structs (also through pointers) promoted
// as if they were t's own, where a field at a shallower depth hides deeper ones of the same name,
// a tagged field wins at equal depth, and otherwise conflicting names are dropped. The order is
// the order of the fields in the source, depth first.
func typeFields(t reflect.Type) ([]structField, error) {
	type queued struct {
		typ   reflect.Type
		index []int
		names string
	}
	var fields []structField
	next := []queued{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, q := range current {
			if visited[q.typ] {
				continue
			}
			visited[q.typ] = true
			for i := range q.typ.NumField() {
				sf := q.typ.Field(i)
				if sf.Anonymous {
					ft := sf.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("godot")
				if tag == "-" {
					continue
				}
				name, omit, typed, bad := parseTag(tag)
				if bad != "" {
					return nil, fmt.Errorf("field %s of %s: unknown godot tag option %q", sf.Name, t, bad)
				}
				index := append(slices.Clip(q.index), i)
				goName := sf.Name
				if q.names != "" {
					goName = q.names + "." + sf.Name
				}
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := structField{name: name, goName: goName, index: index, typ: sf.Type, tagged: name != "", omitEmpty: omit, typed: typed}
					if f.name == "" {
						f.name = sf.Name
					}
					fields = append(fields, f)
					if count[q.typ] > 1 {
						// Two embeddings of the same type at this depth: add a duplicate so that
						// the dominance rule below drops the name.
						fields = append(fields, fields[len(fields)-1])
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, queued{typ: ft, index: index, names: goName})
				}
			}
		}
	}
	slices.SortStableFunc(fields, func(a, b structField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		group := fields[i:j]
		if len(group) == 1 || len(group[0].index) != len(group[1].index) || group[0].tagged != group[1].tagged {
			out = append(out, group[0])
		}
		i = j
	}
	fields = out
	slices.SortFunc(fields, func(a, b structField) int { return slices.Compare(a.index, b.index) })
	for i := range fields {
		f := &fields[i]
		st := t
		var off uintptr
		for k, idx := range f.index {
			sf := st.Field(idx)
			off += sf.Offset
			if k == len(f.index)-1 {
				break
			}
			st = sf.Type
			if st.Kind() == reflect.Pointer {
				st = st.Elem()
				f.steps = append(f.steps, ptrStep{off: off, elem: st})
				off = 0
			}
		}
		f.offset = off
	}
	return fields, nil
}

// encPlanFor returns the cached encoder plan of t, building it on first use.
func encPlanFor(t reflect.Type) *encPlan {
	if p, ok := encPlans.Load(t); ok {
		return p.(*encPlan)
	}
	planMu.Lock()
	defer planMu.Unlock()
	b := planBuilder{enc: map[reflect.Type]*encPlan{}}
	p := b.encPlan(t)
	for t, p := range b.enc {
		encPlans.LoadOrStore(t, p)
	}
	return p
}

type planBuilder struct {
	enc map[reflect.Type]*encPlan
	dec map[reflect.Type]*decPlan
}

func (b *planBuilder) encPlan(t reflect.Type) *encPlan {
	if p, ok := encPlans.Load(t); ok {
		return p.(*encPlan)
	}
	if p, ok := b.enc[t]; ok {
		return p
	}
	p := &encPlan{rtype: t, typ: typeWord(t), ptrTyp: typeWord(reflect.PointerTo(t)), size: t.Size(), direct: isDirect(t)}
	b.enc[t] = p
	p.marshal = implementsMarshal(t)
	if t == rawVariantType {
		p.kind = ekRaw
		return p
	}
	if vt, ok := real32Types[t]; ok {
		p.kind, p.real, p.comps = ekReal32, vt, int(realCount[vt])
		return p
	}
	if t == objectType {
		// An Object value is encoded through a *Object pointing at it.
		p.kind, p.packedTyp = ekPacked, typeWord(reflect.PointerTo(t))
		return p
	}
	if _, ok := godotType(t); ok {
		p.kind = ekGodot
		return p
	}
	switch t.Kind() {
	case reflect.Bool:
		p.kind = ekBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind = ekInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.kind = ekUint
	case reflect.Float32, reflect.Float64:
		p.kind = ekFloat
	case reflect.String:
		p.kind = ekString
	case reflect.Pointer:
		p.kind = ekPtr
		p.elem = b.encPlan(t.Elem())
		if k := t.Elem().Kind(); k == reflect.Pointer || k == reflect.Interface {
			p.elemIndirect = 1
		}
	case reflect.Interface:
		p.kind = ekIface
	case reflect.Struct:
		p.kind = ekStruct
		fields, err := typeFields(t)
		if err != nil {
			p.kind, p.err = ekUnsupported, detail(ErrUnsupported, "%v", err)
			return p
		}
		for _, f := range fields {
			ef := encField{structField: f}
			ef.key = wire.AppendString(wire.AppendUint32(nil, 4), f.name) // String has id 4 in both dialects
			if f.typed {
				tp, err := b.typedPlan(f.typ)
				if err != nil {
					p.kind, p.err = ekUnsupported, detail(ErrUnsupported, "field %s: typed: %v", f.goName, err)
					return p
				}
				ef.plan = tp
			} else {
				ef.plan = b.encPlan(f.typ)
			}
			p.fields = append(p.fields, ef)
		}
	case reflect.Slice:
		if ps, ok := packedFor(t.Elem()); ok {
			p.kind, p.packedTyp = ekPacked, typeWord(ps.slice)
			return p
		}
		p.kind = ekSlice
		p.elem = b.encPlan(t.Elem())
	case reflect.Array:
		p.kind, p.n = ekArray, t.Len()
		p.elem = b.encPlan(t.Elem())
	case reflect.Map:
		p.kind = ekMap
		p.key = b.encPlan(t.Key())
		p.elem = b.encPlan(t.Elem())
		switch t.Key().Kind() {
		case reflect.String:
			p.keyOrder = orderString
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			p.keyOrder = orderInt
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			p.keyOrder = orderUint
		case reflect.Float32, reflect.Float64:
			p.keyOrder = orderFloat
		case reflect.Bool:
			p.keyOrder = orderBool
		}
		if implementsMarshal(t.Key()) != mNone {
			p.keyOrder = orderBytes
		}
	default:
		p.kind, p.err = ekUnsupported, detail(ErrUnsupported, "no Variant type for %s", t)
	}
	return p
}

// typedPlan is the plan of a slice or array field with the typed option.
func (b *planBuilder) typedPlan(t reflect.Type) (*encPlan, error) {
	if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
		return nil, fmt.Errorf("%s is not a slice or array", t)
	}
	vt, err := variantTypeOf(t.Elem())
	if err != nil {
		return nil, err
	}
	p := &encPlan{kind: ekTypedArr, rtype: t, typ: typeWord(t), size: t.Size(), typedElem: vt,
		typedSlice: t.Kind() == reflect.Slice, elem: b.encPlan(t.Elem())}
	if t.Kind() == reflect.Array {
		p.n = t.Len()
	}
	return p, nil
}
