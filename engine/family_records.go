package engine

// FamilyRecords is implemented by a family that keeps its own table per
// message beside the kernel's (a Vec indexed by message id): the kernel
// tells it when it releases a message's record and when a redrive gives a
// released message a fresh one, so the family's table releases and
// revives the same entries.
type FamilyRecords interface {
	// Retired: the kernel is done with message id (removed and nobody
	// works on it).
	Retired(id int32)
	// Revived: a redrive brought message id back with a fresh record.
	Revived(id int32)
}
