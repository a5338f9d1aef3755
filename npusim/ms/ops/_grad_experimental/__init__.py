"""``mindspore.ops._grad_experimental``: newer MindSpore's home of gradient registrations."""
