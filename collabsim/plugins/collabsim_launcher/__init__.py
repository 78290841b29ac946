"""collabsim's Hydra launcher plugins (``launcher=ray``). Hydra instantiates launchers only from
the ``hydra_plugins`` namespace and imports every module there when it starts, so these
modules import neither Ray nor collabsim until a sweep is launched."""
