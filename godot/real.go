package godot

// Math types are sequences of real_t components. These helpers convert between the Go types and
// the components in wire order, so that the encoder and decoder handle every math type, single or
// double precision, with one loop.

// realCount is the number of real_t (or, for Color, float32) components of each math type.
var realCount = [numTypes]uint8{
	TypeVector2: 2, TypeRect2: 4, TypeVector3: 3, TypeTransform2D: 6, TypeVector4: 4,
	TypePlane: 4, TypeQuaternion: 4, TypeAABB: 6, TypeBasis: 9, TypeTransform3D: 12,
	TypeProjection: 16, TypeColor: 4,
}

// intCount is the number of int32 components of the integer vector types.
var intCount = [numTypes]uint8{TypeVector2i: 2, TypeRect2i: 4, TypeVector3i: 3, TypeVector4i: 4}

// real32Value builds the single-precision value of math type t from its components in wire order.
func real32Value(t Type, c *[16]float32) any {
	switch t {
	case TypeVector2:
		return Vector2{c[0], c[1]}
	case TypeRect2:
		return Rect2{Vector2{c[0], c[1]}, Vector2{c[2], c[3]}}
	case TypeVector3:
		return Vector3{c[0], c[1], c[2]}
	case TypeTransform2D:
		return Transform2D{Vector2{c[0], c[1]}, Vector2{c[2], c[3]}, Vector2{c[4], c[5]}}
	case TypeVector4:
		return Vector4{c[0], c[1], c[2], c[3]}
	case TypePlane:
		return Plane{Vector3{c[0], c[1], c[2]}, c[3]}
	case TypeQuaternion:
		return Quaternion{c[0], c[1], c[2], c[3]}
	case TypeAABB:
		return AABB{Vector3{c[0], c[1], c[2]}, Vector3{c[3], c[4], c[5]}}
	case TypeBasis:
		return basis32(c)
	case TypeTransform3D:
		return Transform3D{basis32(c), Vector3{c[9], c[10], c[11]}}
	case TypeProjection:
		return Projection{Vector4{c[0], c[1], c[2], c[3]}, Vector4{c[4], c[5], c[6], c[7]},
			Vector4{c[8], c[9], c[10], c[11]}, Vector4{c[12], c[13], c[14], c[15]}}
	case TypeColor:
		return Color{c[0], c[1], c[2], c[3]}
	}
	return nil
}

// The wire holds a Basis row by row: x.x, y.x, z.x, x.y, y.y, z.y, x.z, y.z, z.z.
func basis32(c *[16]float32) Basis {
	return Basis{Vector3{c[0], c[3], c[6]}, Vector3{c[1], c[4], c[7]}, Vector3{c[2], c[5], c[8]}}
}

func basis64(c *[16]float64) Basisd {
	return Basisd{Vector3d{c[0], c[3], c[6]}, Vector3d{c[1], c[4], c[7]}, Vector3d{c[2], c[5], c[8]}}
}

// real64Value builds the double-precision value of math type t from its components.
func real64Value(t Type, c *[16]float64) any {
	switch t {
	case TypeVector2:
		return Vector2d{c[0], c[1]}
	case TypeRect2:
		return Rect2d{Vector2d{c[0], c[1]}, Vector2d{c[2], c[3]}}
	case TypeVector3:
		return Vector3d{c[0], c[1], c[2]}
	case TypeTransform2D:
		return Transform2Dd{Vector2d{c[0], c[1]}, Vector2d{c[2], c[3]}, Vector2d{c[4], c[5]}}
	case TypeVector4:
		return Vector4d{c[0], c[1], c[2], c[3]}
	case TypePlane:
		return Planed{Vector3d{c[0], c[1], c[2]}, c[3]}
	case TypeQuaternion:
		return Quaterniond{c[0], c[1], c[2], c[3]}
	case TypeAABB:
		return AABBd{Vector3d{c[0], c[1], c[2]}, Vector3d{c[3], c[4], c[5]}}
	case TypeBasis:
		return basis64(c)
	case TypeTransform3D:
		return Transform3Dd{basis64(c), Vector3d{c[9], c[10], c[11]}}
	case TypeProjection:
		return Projectiond{Vector4d{c[0], c[1], c[2], c[3]}, Vector4d{c[4], c[5], c[6], c[7]},
			Vector4d{c[8], c[9], c[10], c[11]}, Vector4d{c[12], c[13], c[14], c[15]}}
	}
	return nil
}

// real32Comps returns the math type of a single-precision value and fills c with its components
// in wire order; ok is false if v is not a single-precision math type.
func real32Comps(v any, c *[16]float32) (t Type, ok bool) {
	switch v := v.(type) {
	case Vector2:
		c[0], c[1] = v.X, v.Y
		return TypeVector2, true
	case Rect2:
		c[0], c[1], c[2], c[3] = v.Position.X, v.Position.Y, v.Size.X, v.Size.Y
		return TypeRect2, true
	case Vector3:
		c[0], c[1], c[2] = v.X, v.Y, v.Z
		return TypeVector3, true
	case Transform2D:
		c[0], c[1], c[2], c[3], c[4], c[5] = v.X.X, v.X.Y, v.Y.X, v.Y.Y, v.Origin.X, v.Origin.Y
		return TypeTransform2D, true
	case Vector4:
		c[0], c[1], c[2], c[3] = v.X, v.Y, v.Z, v.W
		return TypeVector4, true
	case Plane:
		c[0], c[1], c[2], c[3] = v.Normal.X, v.Normal.Y, v.Normal.Z, v.D
		return TypePlane, true
	case Quaternion:
		c[0], c[1], c[2], c[3] = v.X, v.Y, v.Z, v.W
		return TypeQuaternion, true
	case AABB:
		c[0], c[1], c[2], c[3], c[4], c[5] = v.Position.X, v.Position.Y, v.Position.Z, v.Size.X, v.Size.Y, v.Size.Z
		return TypeAABB, true
	case Basis:
		basisComps32(v, c)
		return TypeBasis, true
	case Transform3D:
		basisComps32(v.Basis, c)
		c[9], c[10], c[11] = v.Origin.X, v.Origin.Y, v.Origin.Z
		return TypeTransform3D, true
	case Projection:
		for i, col := range [4]Vector4{v.X, v.Y, v.Z, v.W} {
			c[4*i], c[4*i+1], c[4*i+2], c[4*i+3] = col.X, col.Y, col.Z, col.W
		}
		return TypeProjection, true
	case Color:
		c[0], c[1], c[2], c[3] = v.R, v.G, v.B, v.A
		return TypeColor, true
	}
	return 0, false
}

func basisComps32(b Basis, c *[16]float32) {
	c[0], c[1], c[2] = b.X.X, b.Y.X, b.Z.X
	c[3], c[4], c[5] = b.X.Y, b.Y.Y, b.Z.Y
	c[6], c[7], c[8] = b.X.Z, b.Y.Z, b.Z.Z
}

func basisComps64(b Basisd, c *[16]float64) {
	c[0], c[1], c[2] = b.X.X, b.Y.X, b.Z.X
	c[3], c[4], c[5] = b.X.Y, b.Y.Y, b.Z.Y
	c[6], c[7], c[8] = b.X.Z, b.Y.Z, b.Z.Z
}

// real64Comps is real32Comps for the double-precision types.
func real64Comps(v any, c *[16]float64) (t Type, ok bool) {
	switch v := v.(type) {
	case Vector2d:
		c[0], c[1] = v.X, v.Y
		return TypeVector2, true
	case Rect2d:
		c[0], c[1], c[2], c[3] = v.Position.X, v.Position.Y, v.Size.X, v.Size.Y
		return TypeRect2, true
	case Vector3d:
		c[0], c[1], c[2] = v.X, v.Y, v.Z
		return TypeVector3, true
	case Transform2Dd:
		c[0], c[1], c[2], c[3], c[4], c[5] = v.X.X, v.X.Y, v.Y.X, v.Y.Y, v.Origin.X, v.Origin.Y
		return TypeTransform2D, true
	case Vector4d:
		c[0], c[1], c[2], c[3] = v.X, v.Y, v.Z, v.W
		return TypeVector4, true
	case Planed:
		c[0], c[1], c[2], c[3] = v.Normal.X, v.Normal.Y, v.Normal.Z, v.D
		return TypePlane, true
	case Quaterniond:
		c[0], c[1], c[2], c[3] = v.X, v.Y, v.Z, v.W
		return TypeQuaternion, true
	case AABBd:
		c[0], c[1], c[2], c[3], c[4], c[5] = v.Position.X, v.Position.Y, v.Position.Z, v.Size.X, v.Size.Y, v.Size.Z
		return TypeAABB, true
	case Basisd:
		basisComps64(v, c)
		return TypeBasis, true
	case Transform3Dd:
		basisComps64(v.Basis, c)
		c[9], c[10], c[11] = v.Origin.X, v.Origin.Y, v.Origin.Z
		return TypeTransform3D, true
	case Projectiond:
		for i, col := range [4]Vector4d{v.X, v.Y, v.Z, v.W} {
			c[4*i], c[4*i+1], c[4*i+2], c[4*i+3] = col.X, col.Y, col.Z, col.W
		}
		return TypeProjection, true
	}
	return 0, false
}

// intVecValue builds an integer vector from its components.
func intVecValue(t Type, c *[4]int32) any {
	switch t {
	case TypeVector2i:
		return Vector2i{c[0], c[1]}
	case TypeRect2i:
		return Rect2i{Vector2i{c[0], c[1]}, Vector2i{c[2], c[3]}}
	case TypeVector3i:
		return Vector3i{c[0], c[1], c[2]}
	case TypeVector4i:
		return Vector4i{c[0], c[1], c[2], c[3]}
	}
	return nil
}
