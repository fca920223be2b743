package ordering

// The delivery event's packing, opened for the external tests (this file
// is compiled only with them).
var (
	DeliverAux    = deliverAux
	UnpackDeliver = unpackDeliver
)
