"""Round 14: train()'s torch thread limit, shared by concurrent trainings (the bad order forced)."""

import threading

import torch

from algorithms.blackbox.train import _ONE_TORCH_THREAD


def test_first_training_to_end_does_not_restore_under_the_second():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        a_in, b_in, a_out, b_out = (threading.Event() for _ in range(4))
        seen = {}

        def first():
            with _ONE_TORCH_THREAD.held():
                a_in.set()
                b_in.wait(5)
            a_out.set()

        def second():
            a_in.wait(5)
            with _ONE_TORCH_THREAD.held():
                b_in.set()
                a_out.wait(5)   # the first has left: the limit must still hold for this one
                seen["during"] = torch.get_num_threads()
            b_out.set()

        threads = [threading.Thread(target=first), threading.Thread(target=second)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        fresh = []   # a thread started after both: the old per-call save/restore left it one torch thread
        later = threading.Thread(target=lambda: fresh.append(torch.get_num_threads()))
        later.start()
        later.join(10)
        assert seen["during"] == 1 and fresh == [2]
    finally:
        torch.set_num_threads(before)
