"""The example op project's TBE ops (CANN custom op project layout: tbe/impl/<op_file>.py)."""
