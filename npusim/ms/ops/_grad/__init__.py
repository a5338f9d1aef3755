"""``mindspore.ops._grad``: where MindSpore keeps gradient registrations."""
