package ordering

import (
	"testing"
)

// TestDeliverAux: consumer_threads allows 64, and a delivery's event used
// to keep four bits of its thread number, so threads 17 to 64 were told
// as threads 1 to 16. The packing keeps every thread the knob allows and
// packs threads below 16 exactly as before (their traces keep their
// hashes).
func TestDeliverAux(t *testing.T) {
	for _, tc := range []struct {
		off           int64
		consumer, th  int
		wantAux       int64
		wantSameAsOld bool
	}{
		{0, 0, 0, 0, true},
		{1234, 2, 15, 1234<<8 | 2<<4 | 15, true},
		{1234, 2, 16, 1<<58 | 1234<<8 | 2<<4, false},
		{99_999, 1, 40, 2<<58 | 99_999<<8 | 1<<4 | 8, false},
		{1<<40 - 1, 2, 63, 3<<58 | (1<<40-1)<<8 | 2<<4 | 15, false},
	} {
		aux := deliverAux(tc.off, tc.consumer, tc.th)
		old := tc.off<<8 | int64(tc.consumer)<<4 | int64(tc.th&15)
		off, c, th := unpackDeliver(aux)
		if aux != tc.wantAux || (aux == old) != tc.wantSameAsOld || off != tc.off || c != tc.consumer || th != tc.th {
			t.Errorf("%+v: aux %#x (old %#x) unpacks to %d %d %d", tc, aux, old, off, c, th)
		}
	}
}
