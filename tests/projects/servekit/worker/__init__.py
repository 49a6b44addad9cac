"""The worker: the persistent input batch, block tables and the model runner."""
