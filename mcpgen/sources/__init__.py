"""Sources: each turns one kind of input into an `ir.Project`."""
