"""A stand-in for Moss-VL's remote-code config class (synthetic; see ../README.md).

Only what loading needs: the text keys live at the top level, ``vision_config`` stays a dict.
"""

from transformers import PretrainedConfig


class MossVLConfig(PretrainedConfig):
    model_type = "moss_vl"

    def __init__(self, vision_config=None, **kwargs):
        self.vision_config = vision_config
        super().__init__(**kwargs)
