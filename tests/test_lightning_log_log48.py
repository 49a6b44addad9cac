"""Session 48 (log48): Python numbers logged per step through a Lightning module's
``log``/``log_dict`` (HTD107, MEDIUM; ``h2dlint/analysis/lightning_logs.py``). Lightning 2.6's
``LightningModule.log`` makes ``torch.tensor(value, device=self.device)`` of each number, a
blocking pageable copy per call (docs/recall.md, "Session 48 (log48)")."""

from __future__ import annotations

from pathlib import Path

from lint_runs import lint, package_records

# nemo-toolkit 2.4.1 ``nemo/lightning/pytorch/strategies/megatron_strategy.py`` (cut down):
# the strategy's training_step logs the trainer's int step and memory statistics per step.
STRATEGY = """
    import torch
    from lightning.pytorch.strategies import DDPStrategy

    class MegatronStrategy(DDPStrategy):
        def training_step(self, dataloader_iter, *args, **kwargs):
            out = self.model.training_step(dataloader_iter, *args, **kwargs)
            reduced_train_loss = out["loss"]
            self.lightning_module.log("global_step", self.trainer.global_step, batch_size=1)
            if self.log_memory_usage:
                max_memory_reserved = torch.cuda.max_memory_reserved()
                self.lightning_module.log("max_memory_reserved", max_memory_reserved)
            self.lightning_module.log("reduced_train_loss", reduced_train_loss, prog_bar=True)

        def on_train_epoch_end(self):
            self.lightning_module.log("epoch", self.trainer.current_epoch)
    """

# ``nemo/lightning/pytorch/plugins/data_sampler.py`` (cut down): a step-end hook logging the
# results of the class's own ``-> int`` method and property.
SAMPLER = """
    class MegatronDataSampler:
        def compute_consumed_samples(self, steps_since_resume=0) -> int:
            from nemo.lightning.pytorch.strategies import MegatronStrategy
            return self.init_consumed_samples + steps_since_resume * self.global_batch_size

        @property
        def current_global_batch_size(self) -> int:
            return self.global_batch_size

        @property
        def micro_batches(self):
            return self.calculator.micro_batches

        def on_megatron_step_end(self, step):
            pl_module = step.pl_module
            consumed_samples = self.compute_consumed_samples(step.step_i + 1)
            pl_module.log("consumed_samples", consumed_samples, prog_bar=True)
            pl_module.log("global_batch_size", self.current_global_batch_size)
            pl_module.log("micro_batches", self.micro_batches)
    """

MODULE = """
    import lightning.pytorch as pl

    class Base(pl.LightningModule):
        pass

    class Model(Base):
        def training_step(self, batch, batch_idx):
            return self._shared_step(batch, "train")

        def validation_step(self, batch, batch_idx):
            return self._shared_step(batch, "val")

        def _shared_step(self, batch, stage):
            loss = self.net(batch).mean()
            self.log(f"{stage}_loss", loss)
            self.log(f"{stage}_batch", len(batch))
            metrics = {"loss": loss, "acc": float(loss > 0), "n": batch.shape[0]}
            self.log_dict(metrics)
            return loss

        def on_validation_epoch_end(self):
            self.log("val_epochs", self.current_epoch)
    """


def _rows(code: str) -> list[int]:
    return sorted(f.start.row for f in lint(code, "HTD107"))


def test_the_strategy_numbers_are_reported_not_the_loss_tensor_or_the_epoch_hook() -> None:
    findings = lint(STRATEGY, "HTD107")
    assert sorted(f.start.row for f in findings) == [9, 12]
    assert all(f.confidence.value == "medium" for f in findings)
    message = findings[0].message
    assert "torch.tensor(value, device=self.device)" in message
    assert "log the tensor itself" in message and "pinned" in message


def test_annotated_methods_and_properties_of_the_class_are_numbers() -> None:
    # ``micro_batches`` is a property without an annotation: unknown, left alone.
    assert _rows(SAMPLER) == [18, 19]


def test_a_helper_of_the_step_hooks_is_reported_and_log_dict_counts_its_numbers() -> None:
    findings = lint(MODULE, "HTD107")
    assert sorted(f.start.row for f in findings) == [17, 19]
    log_dict = next(f for f in findings if f.start.row == 19)
    assert log_dict.message.startswith("2 Python numbers logged through a Lightning module's")
    assert "`log_dict`" in log_dict.message


def test_the_module_must_be_lightnings() -> None:
    plain = MODULE.replace("pl.LightningModule", "object")
    assert _rows(plain) == []
    # a logger's or a trainer's ``log`` of a non-Lightning class makes no tensor
    trainer = """
        class Trainer:
            def training_step(self, model, inputs):
                self.log({"loss": model(inputs).item()})
                self.log("step", self.global_step)
        """
    assert _rows(trainer) == []


def test_a_callbacks_batch_hook_is_per_step_and_its_epoch_hook_is_not() -> None:
    code = """
        import torch
        from lightning.pytorch.callbacks import Callback

        class Monitor(Callback):
            def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
                pl_module.log("lr", trainer.optimizers[0].param_groups[0]["lr"])
                pl_module.log("loss", outputs["loss"])

            def on_train_epoch_end(self, trainer, pl_module):
                pl_module.log("epoch_time", self.timer.elapsed())
                pl_module.log("epoch", trainer.current_epoch)

            def on_fit_start(self, trainer, pl_module):
                pl_module.log("start", 0)
        """
    assert _rows(code) == [7]


def test_a_lightning_module_subclass_in_another_module_is_resolved(tmp_path: Path) -> None:
    files = {
        "base.py": "import lightning.pytorch as pl\n\nclass ModelPT(pl.LightningModule):\n"
        "    pass\n",
        "model.py": "from .base import ModelPT\n\nclass Net(ModelPT):\n"
        "    def training_step(self, batch, batch_idx):\n"
        "        loss = self.net(batch).mean()\n"
        '        self.log("loss", loss.item())\n'
        "        return loss\n",
    }
    records = package_records(tmp_path, files, "HTD107")
    assert [(Path(r["filename"]).name, r["location"]["row"]) for r in records] == [("model.py", 6)]


def test_an_attribute_the_class_only_assigns_numbers_is_a_number() -> None:
    # torchgeo 0.8.1 ``trainers/moco.py:430``: a running mean of ``output_std.item()``.
    code = """
        import lightning.pytorch as pl

        class MoCo(pl.LightningModule):
            def __init__(self):
                super().__init__()
                self.avg_output_std = 0.0
                self.avg_loss = None
                self.seen = 0

            def training_step(self, batch, batch_idx):
                output_std = self.net(batch).std()
                self.avg_output_std = 0.9 * self.avg_output_std + 0.1 * output_std.item()
                self.log("train_ssl_std", self.avg_output_std)
                self.avg_loss = output_std
                self.log("avg_loss", self.avg_loss)
                self.seen += 1
                self.log("seen", self.seen)
        """
    assert _rows(code) == [14]


def test_a_method_annotated_float_that_makes_a_tensor_is_no_number() -> None:
    # boltz 2.2.1 ``model/models/boltz1.py:543``: ``gradient_norm(...) -> float`` returns a
    # host tensor, which Lightning keeps on the host.
    code = """
        import torch
        import lightning.pytorch as pl

        class Boltz1(pl.LightningModule):
            def training_step(self, batch, batch_idx):
                loss = self.net(batch).mean()
                self.log("train/grad_norm", self.gradient_norm(self))
                self.log("lr", self.trainer.optimizers[0].param_groups[0]["lr"])
                return loss

            def gradient_norm(self, module) -> float:
                parameters = filter(lambda p: p.grad is not None, module.parameters())
                return torch.tensor([p.grad.norm(p=2) ** 2 for p in parameters]).sum().sqrt()
        """
    assert _rows(code) == [9]


def test_a_log_once_every_n_steps_is_left_alone() -> None:
    code = """
        import lightning.pytorch as pl

        class Model(pl.LightningModule):
            def training_step(self, batch, batch_idx):
                loss = self.net(batch).mean()
                if self.global_step % 100 == 0:
                    self.log("lr", self.optimizers().param_groups[0]["lr"])
                else:
                    self.log("step", self.global_step)
                return loss

            def on_train_batch_end(self, outputs, batch, batch_idx):
                if batch_idx % self.log_every != 0:
                    return
                self.log("step", self.global_step)

            def on_before_optimizer_step(self, optimizer):
                # nemo 2.4.1 ``megatron_bert_model.py:436``: once per optimizer step
                if (self.batch_idx + 1) % self.trainer.accumulate_grad_batches == 0:
                    self.log("lr", optimizer.param_groups[0]["lr"])
        """
    assert _rows(code) == [10, 21]


# anomalib 2.7.0 ``models/image/csflow/lightning_model.py:131`` (cut down): the logged number
# is ``.item()`` of a loss proven on the device, a read HTD202 reports on the same line.
ITEM_OF_DEVICE_LOSS = """
    import lightning.pytorch as pl

    class Csflow(pl.LightningModule):
        def training_step(self, batch, *args, **kwargs):
            image = batch.cuda()
            loss = (image * image).mean()
            self.log("train_loss", loss.item(), on_epoch=True, prog_bar=True)
            self.log("train_loss_scaled", loss.mean().item() * 2)
            return {"loss": loss}
    """


def test_a_logged_item_of_a_device_tensor_is_one_finding_htd202s() -> None:
    # One finding per statement: the read's (HTD202, HIGH); logging the tensor removes both.
    # The second log's number is arithmetic on a read: HTD202 reports the read, HTD107 the
    # copy of the product (a new number the host made).
    findings = lint(ITEM_OF_DEVICE_LOSS, "HTD107", "HTD202")
    assert sorted((f.start.row, f.code) for f in findings) == [
        (8, "HTD202"),
        (9, "HTD107"),
        (9, "HTD202"),
    ]
