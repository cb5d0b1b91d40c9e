"""How results look: the human table (:mod:`.table`) and the machine formats (:mod:`.machine`)."""
