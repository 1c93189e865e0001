#!/bin/sh
echo lint ok
