"""Ours, not the client's: a stand-in for kubernetes/e2e_test/base.py (and its aio twin) for a
machine without the snapshot of the client's repository that holds the real one. It offers what
the e2e tests shipped in the PyPI sdist import, get_e2e_configuration(), reading the cluster from
$KUBECONFIG as the real one does, and skips when there is none."""

import asyncio
import os
import unittest


def get_e2e_configuration():
    path = os.environ.get("KUBECONFIG", "")
    if not path or not os.path.exists(path):
        raise unittest.SkipTest("Unable to find a running Kubernetes instance")
    if __name__.startswith("kubernetes.aio."):
        from kubernetes.aio.client.configuration import Configuration
        from kubernetes.aio.config import kube_config

        config = Configuration()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        loop.run_until_complete(kube_config.load_kube_config(config_file=path, client_configuration=config))
    else:
        from kubernetes.client.configuration import Configuration
        from kubernetes.config import kube_config

        config = Configuration()
        kube_config.load_kube_config(config_file=path, client_configuration=config)
    config.assert_hostname = False
    return config
