"""What is slow, said in words (:mod:`.summary`) and drawn (:mod:`.report`, :mod:`.charts`)."""
