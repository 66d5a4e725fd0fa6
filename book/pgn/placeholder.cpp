// PGN reader component
