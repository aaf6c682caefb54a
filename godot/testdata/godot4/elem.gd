# A script class for the corpus: script-typed Arrays and Dictionaries (Array[preload("elem.gd")])
# and full objects with a script, whose "script" property Godot 4.3+ writes as this file's
# res:// path.
extends RefCounted

@export var count: int = 7
@export var tag: StringName = &"elem"
@export var child: Resource
var scratch: String = "not stored"
