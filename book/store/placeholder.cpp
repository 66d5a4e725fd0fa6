// LMDB store component
