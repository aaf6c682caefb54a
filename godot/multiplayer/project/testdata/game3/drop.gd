extends Node2D

var amount := 1
