package godot

// The types below hold real_t values of Godot 4 builds compiled with precision=double. Their
// encodings carry the header's 64-bit flag and 8-byte components; a decoder returns them whenever
// it sees that flag on a real_t type, so nothing is rounded. Godot 3 has no such form: encoding
// them in the Godot 3 dialect is an error.

// Vector2d is a [Vector2] of a double-precision build.
type Vector2d struct{ X, Y float64 }

// Rect2d is a [Rect2] of a double-precision build.
type Rect2d struct{ Position, Size Vector2d }

// Vector3d is a [Vector3] of a double-precision build.
type Vector3d struct{ X, Y, Z float64 }

// Vector4d is a [Vector4] of a double-precision build.
type Vector4d struct{ X, Y, Z, W float64 }

// Transform2Dd is a [Transform2D] of a double-precision build.
type Transform2Dd struct{ X, Y, Origin Vector2d }

// Planed is a [Plane] of a double-precision build.
type Planed struct {
	Normal Vector3d
	D      float64
}

// Quaterniond is a [Quaternion] of a double-precision build.
type Quaterniond struct{ X, Y, Z, W float64 }

// AABBd is an [AABB] of a double-precision build.
type AABBd struct{ Position, Size Vector3d }

// Basisd is a [Basis] of a double-precision build.
type Basisd struct{ X, Y, Z Vector3d }

// Transform3Dd is a [Transform3D] of a double-precision build.
type Transform3Dd struct {
	Basis  Basisd
	Origin Vector3d
}

// Projectiond is a [Projection] of a double-precision build.
type Projectiond struct{ X, Y, Z, W Vector4d }
